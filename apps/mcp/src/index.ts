export { resolveRoots } from "./files.js";
export { type HttpSettings, serveHttp } from "./http.js";
export { createMcpServer, type McpSettings } from "./server.js";
export { operationTool, type ToolDefinition } from "./tools.js";
