import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import type { ResolvedAddress } from "../src/index.js";

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A loopback HTTP server that counts every TCP connection and request it receives. */
export interface TestServer {
  readonly port: number;
  readonly host: string;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

function track(server: Server | HttpsServer, host: string): TestServer {
  const state: TestServer = {
    port: (server.address() as AddressInfo).port,
    host,
    connections: 0,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("connection", () => {
    state.connections += 1;
  });
  server.on("request", (request: IncomingMessage) => {
    state.requests.push(`${request.method ?? ""} ${request.url ?? ""}`);
  });
  return state;
}

function listen(server: Server | HttpsServer, host: string, port: number): Promise<TestServer> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(track(server, host)));
  });
}

export function startServer(handler: Handler, host = "127.0.0.1", port = 0): Promise<TestServer> {
  return listen(createServer(handler), host, port);
}

/** A canary answers 200 to anything; the tests assert it never saw a connection. */
export function startCanary(host = "127.0.0.1", port = 0): Promise<TestServer> {
  return startServer((_request, response) => response.end("canary"), host, port);
}

/**
 * An HTTPS server with a fresh self-signed certificate for "localhost" (so no client trusts it).
 * `servernames` collects the SNI names clients sent.
 */
export async function startTlsServer(): Promise<TestServer & { servernames: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "octavo-net-tls-"));
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
        .concat(["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        .concat(["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")]),
      { stdio: "ignore" },
    );
    const key = readFileSync(join(dir, "key.pem"));
    const cert = readFileSync(join(dir, "cert.pem"));
    const servernames: string[] = [];
    const context = createSecureContext({ key, cert });
    const server = createTlsServer(
      {
        key,
        cert,
        SNICallback: (servername, callback) => {
          servernames.push(servername);
          callback(null, context);
        },
      },
      (_request, response) => response.end("secret"),
    );
    const state = await listen(server, "127.0.0.1", 0);
    return Object.assign(state, { servernames });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A resolver for tests: fixed answers per name, counting the questions; unknown names fail. */
export function fakeResolver(answers: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const entry = answers[host];
    if (entry === undefined)
      throw Object.assign(new Error(`unknown test name ${host}`), { code: "ENOTFOUND" });
    const list = typeof entry === "function" ? entry() : entry;
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}

/** A port nothing listens on: bound, then closed again. */
export async function closedPort(): Promise<number> {
  const server = await startServer(() => undefined);
  await server.close();
  return server.port;
}
