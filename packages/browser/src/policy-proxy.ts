import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { pipeline, Transform } from "node:stream";
import { type CheckedHost, OutboundError } from "@octavo/net";
import { connectPinned } from "./connect-pinned.js";

/** What the proxy asks before every connection and tells after every chunk. */
export interface ProxyPolicy {
  /** The addresses host:port may be reached at, or OutboundError. */
  check(host: string, port: number): Promise<CheckedHost>;
  /** Counts bytes coming back from a server; false when the budget is spent (the connection is cut). */
  received(bytes: number): boolean;
  /** A checked target could not be reached; recorded so a failed page load can say why. */
  unreachable(host: string, port: number, error: unknown): void;
}

// Headers that belong to one hop (RFC 9110 §7.6.1), plus the proxy's own.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(raw: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    if (!HOP_BY_HOP.has(name.toLowerCase())) kept.push(name, raw[i + 1] ?? "");
  }
  return kept;
}

/** "host:port" of a CONNECT request ("[::1]:443" included), read by the URL parser. */
function connectTarget(authority: string | undefined): { host: string; port: number } | undefined {
  const url = URL.parse(`http://${authority ?? ""}/`);
  if (!url || url.port === "" || url.pathname !== "/" || url.username !== "") return undefined;
  return { host: url.hostname, port: Number(url.port) };
}

const refusedTunnel = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
const failedTunnel = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/**
 * A forward proxy (plain HTTP and CONNECT) on 127.0.0.1 that lets Chromium reach only what the
 * outbound policy allows. Chromium resolves no names when it uses a proxy: the proxy asks the policy,
 * which resolves and checks, then connects to those very addresses. Everything the browser context
 * does goes through it (subresources, every redirect hop, iframes, fetch/XHR, WebSockets, service
 * workers), which request interception alone does not see. Refused targets get a 403 with an empty
 * body, so the page just sees a failed load.
 */
export class PolicyProxy {
  readonly #server: Server;
  readonly #policy: ProxyPolicy;
  readonly #onError: (error: unknown) => void;
  readonly #sockets = new Set<Duplex>();
  #closed = false;

  private constructor(policy: ProxyPolicy, onError: (error: unknown) => void) {
    this.#policy = policy;
    this.#onError = onError;
    this.#server = createServer();
    this.#server.on("connection", (socket: Socket) => this.#track(socket));
    this.#server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      this.#forward(req, res).catch((error: unknown) => {
        this.#onError(error);
        this.#fail(res, error);
      });
    });
    this.#server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#tunnel(req, socket, head).catch((error: unknown) => {
        this.#onError(error);
        socket.end(failedTunnel);
      });
    });
    // Chromium tunnels WebSockets through CONNECT; an Upgrade sent as a plain proxy request is refused.
    this.#server.on("upgrade", (_req: IncomingMessage, socket: Duplex) => {
      socket.end(refusedTunnel);
    });
  }

  /** `onError` hears what the proxy did not expect (a policy that threw something else than a refusal). */
  static async start(policy: ProxyPolicy, onError: (error: unknown) => void): Promise<PolicyProxy> {
    const proxy = new PolicyProxy(policy, onError);
    proxy.#server.listen(0, "127.0.0.1");
    await once(proxy.#server, "listening");
    return proxy;
  }

  /** For Chromium's `--proxy-server` or a browser context's proxyServer. */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Stops listening and cuts every connection still open, so nothing of a job outlives it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = once(this.#server, "close");
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #track(socket: Duplex): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    // A reset from either side must not become an uncaught error; the other side is cut with it.
    socket.on("error", () => socket.destroy());
  }

  /** Counts what a server sends back and cuts the connection once the job's budget is spent. */
  #meter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        if (this.#policy.received(chunk.length)) callback(null, chunk);
        else callback(new OutboundError("too_large", "the page's byte budget is spent"));
      },
    });
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = URL.parse(req.url ?? "");
    if (target?.protocol !== "http:") {
      res.writeHead(400, { "content-length": "0", connection: "close" }).end();
      return;
    }
    const host = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
    const port = target.port === "" ? 80 : Number(target.port);
    const checked = await this.#check(host, port);
    if (!checked) {
      res.writeHead(403, { "content-length": "0" }).end();
      return;
    }
    const socket = await this.#open(checked, host, port);
    if (!socket) {
      res.writeHead(502, { "content-length": "0" }).end();
      return;
    }
    const upstream = request({
      createConnection: () => socket,
      method: req.method ?? "GET",
      path: `${target.pathname}${target.search}`,
      headers: [...endToEnd(req.rawHeaders), "Connection", "close"],
      setHost: false,
    });
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      pipeline(answer, this.#meter(), res, (error) => {
        if (error) socket.destroy();
      });
    });
    upstream.on("error", (error) => this.#fail(res, error));
    res.once("close", () => socket.destroy());
    pipeline(req, upstream, (error) => {
      if (error) socket.destroy();
    });
  }

  async #tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const target = connectTarget(req.url);
    const checked = target ? await this.#check(target.host, target.port) : undefined;
    if (!target || !checked) {
      client.end(refusedTunnel);
      return;
    }
    const server = await this.#open(checked, target.host, target.port);
    if (!server) {
      client.end(failedTunnel);
      return;
    }
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) server.write(head);
    // An error on either side (or a spent budget) cuts both; a clean end is passed on as a half-close.
    const cut = (error: Error | null): void => {
      if (!error) return;
      client.destroy();
      server.destroy();
    };
    pipeline(server, this.#meter(), client, cut);
    pipeline(client, server, cut);
  }

  async #check(host: string, port: number): Promise<CheckedHost | undefined> {
    try {
      return await this.#policy.check(host, port);
    } catch (error) {
      if (error instanceof OutboundError) return undefined;
      throw error;
    }
  }

  async #open(checked: CheckedHost, host: string, port: number): Promise<Socket | undefined> {
    try {
      const socket = await connectPinned(checked.addresses, port);
      this.#track(socket);
      return socket;
    } catch (error) {
      this.#policy.unreachable(host, port, error);
      return undefined;
    }
  }

  #fail(res: ServerResponse, error: unknown): void {
    if (!res.headersSent) res.writeHead(502, { "content-length": "0" }).end();
    else res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
