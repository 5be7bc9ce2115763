/** This server's version, as it tells MCP clients (package.json's). */
export const VERSION = "0.1.0";
