import { createServer, request } from "node:http";

/** A request the proxy saw. */
export interface ProxiedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
}

/**
 * An HTTP proxy on 127.0.0.1 in front of the service that can fail on purpose, the way a load balancer
 * or a network does: answer POSTs 503 itself, or pass a POST on and then cut the connection before
 * its answer reaches the client (the job exists; the client never hears of it).
 */
export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  /** The next `count` POSTs are answered 503 with Retry-After: 1 and never reach the service. */
  unavailable(count: number): void;
  /** The next `count` POSTs reach the service, and their answers are dropped with the connection. */
  dropAnswers(count: number): void;
  close(): Promise<void>;
}

export function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const requests: ProxiedRequest[] = [];
  let unavailable = 0;
  let drops = 0;
  const server = createServer((req, res) => {
    const key = req.headers["idempotency-key"];
    requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      idempotencyKey: typeof key === "string" ? key : undefined,
    });
    if (req.method === "POST" && unavailable > 0) {
      unavailable -= 1;
      req.resume();
      req.on("end", () => {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
        res.end(JSON.stringify({ error: "unavailable", message: "Proxy: try again.", detail: "" }));
      });
      return;
    }
    const drop = req.method === "POST" && drops > 0;
    if (drop) drops -= 1;
    const forwarded = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        if (drop) {
          answer.resume();
          answer.on("end", () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        unavailable: (count) => {
          unavailable = count;
        },
        dropAnswers: (count) => {
          drops = count;
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
