import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Octavo } from "@octavo/client";
import { Command, InvalidArgumentError } from "commander";
import { resolveRoots } from "./files.js";
import { serveHttp } from "./http.js";
import { createMcpServer } from "./server.js";
import { VERSION } from "./version.js";

const integer = (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError("a whole number");
  return parsed;
};
const collect = (value: string, previous: string[]) => [...previous, value];

/** `octavo-mcp`: stdio by default (the key from OCTAVO_API_KEY), or `--http` (each client's own key). */
export async function main(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name("octavo-mcp")
    .description("A Model Context Protocol server for the octavo PDF API: one tool per operation.")
    .version(VERSION)
    .option(
      "--http",
      "serve Streamable HTTP instead of stdio; each client sends its own Authorization: Bearer key",
    )
    .option("--host <host>", "HTTP: the address to listen on", "127.0.0.1")
    .option("--port <port>", "HTTP: the port (0: any free one)", integer, 3333)
    .option("--allowed-host <host>", "HTTP: another Host header to accept, e.g. mcp.example.com", collect, [])
    .option("--root <dir>", "stdio: a directory whose files the tools may read (repeatable)", collect, [])
    .option("--base-url <url>", "the octavo API (default: OCTAVO_BASE_URL, else http://127.0.0.1:8000)")
    .option("--inline-limit <bytes>", "the most bytes of a text output returned inline", integer, 256 * 1024);
  program.parse(argv);
  const options = program.opts<{
    http?: boolean;
    host: string;
    port: number;
    allowedHost: string[];
    root: string[];
    baseUrl?: string;
    inlineLimit: number;
  }>();
  const baseUrl = options.baseUrl ?? process.env.OCTAVO_BASE_URL ?? "http://127.0.0.1:8000";
  if (options.http) {
    const served = await serveHttp({
      host: options.host,
      port: options.port,
      baseUrl,
      inlineLimit: options.inlineLimit,
      allowedHosts: options.allowedHost,
    });
    // stderr: stdout may be read by whoever started the server.
    process.stderr.write(`octavo-mcp: Streamable HTTP at ${served.url}\n`);
    const stop = () => void served.close().then(() => process.exit(0));
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    return;
  }
  const server = createMcpServer({
    // Throws, naming OCTAVO_API_KEY, when it is not set.
    client: new Octavo({ baseUrl }),
    roots: await resolveRoots(options.root),
    inlineLimit: options.inlineLimit,
  });
  await server.connect(new StdioServerTransport());
}
