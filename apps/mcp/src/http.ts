import { createHash, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { Octavo } from "@octavo/client";
import type { Request, Response } from "express";
import { createMcpServer } from "./server.js";

export interface HttpSettings {
  host: string;
  port: number;
  /** The octavo API the sessions call. */
  baseUrl: string;
  inlineLimit: number;
  /** Host names accepted besides localhost's (DNS rebinding protection), e.g. the proxy's public name. */
  allowedHosts: readonly string[];
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** SHA-256 of the API key the session was opened with: every later request must bring the same key. */
  keyHash: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const bearerOf = (req: Request) => /^Bearer\s+(\S+)$/i.exec(req.header("authorization") ?? "")?.[1];
const refuse = (res: Response, status: number, message: string) =>
  res.status(status).json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

/**
 * MCP over Streamable HTTP, with sessions. Each session acts with the API key its client sent
 * (`Authorization: Bearer`) when it opened it, and only that key may use it: one client's key never
 * serves another. This server reads no local file: inputs are URLs.
 */
export async function serveHttp(settings: HttpSettings): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, Session>();
  // The MCP SDK's app: a request whose Host is not one of these is refused (403) before its body is read,
  // so a web page cannot reach the server through DNS rebinding, wherever it listens.
  const app = createMcpExpressApp({
    host: settings.host,
    allowedHosts: ["localhost", "127.0.0.1", "[::1]", ...settings.allowedHosts],
  });
  app.disable("x-powered-by");

  const sessionOf = (req: Request, res: Response, key: string): Session | undefined => {
    const session = sessions.get(req.header("mcp-session-id") ?? "");
    if (session === undefined) refuse(res, 404, "Unknown session: open one with an initialize request.");
    else if (session.keyHash !== sha256(key))
      refuse(res, 403, "This session was opened with another API key.");
    else return session;
    return undefined;
  };

  app.post("/mcp", async (req, res) => {
    const key = bearerOf(req);
    if (key === undefined) {
      refuse(res, 401, "Send your octavo API key as Authorization: Bearer <key>.");
      return;
    }
    if (req.header("mcp-session-id") !== undefined) {
      const session = sessionOf(req, res, key);
      if (session) await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (!isInitializeRequest(req.body)) {
      refuse(res, 400, "No session: send an initialize request first.");
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, keyHash: sha256(key) });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    const mcp = createMcpServer({
      client: new Octavo({ apiKey: key, baseUrl: settings.baseUrl }),
      roots: undefined,
      inlineLimit: settings.inlineLimit,
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const onSession = async (req: Request, res: Response) => {
    const key = bearerOf(req);
    if (key === undefined) {
      refuse(res, 401, "Send your octavo API key as Authorization: Bearer <key>.");
      return;
    }
    const session = sessionOf(req, res, key);
    if (session) await session.transport.handleRequest(req, res);
  };
  app.get("/mcp", onSession);
  app.delete("/mcp", onSession);

  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(settings.port, settings.host, () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${settings.host}:${port}/mcp`,
    close: async () => {
      for (const session of sessions.values()) await session.transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
