import type { IncomingMessage, ServerResponse } from "node:http";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkHost,
  checkUrl,
  downloadUrl,
  OutboundError,
  parseAllowlist,
  postBytes,
  postJson,
  systemResolver,
} from "../src/index.js";
import {
  closedPort,
  fakeResolver,
  startCanary,
  startServer,
  startTlsServer,
  type TestServer,
} from "./servers.js";

// Every server here listens on loopback, and every name is answered by a test resolver (or is
// "localhost"), so no packet leaves the machine. The canaries must never see a connection.

const PDF = Buffer.from("%PDF-1.4\n% a tiny test file\n%%EOF\n");
const none = parseAllowlist(undefined);

let files: TestServer;
let canary: TestServer;
let canary6: TestServer | undefined;
let shadow: TestServer;
const webhooks: { headers: IncomingMessage["headers"]; body: string }[] = [];

async function rejection(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => new Error("expected the call to fail"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof OutboundError)) throw error;
  return error;
}

function route(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? "/", "http://files.test");
  const redirect = (status: number, location: string, close = false) => {
    response.writeHead(status, { location, ...(close ? { connection: "close" } : {}) });
    response.end();
  };
  switch (url.pathname) {
    case "/report.pdf":
      response.writeHead(200, { "content-type": "application/pdf", "content-length": PDF.length });
      response.end(PDF);
      return;
    case "/disposition":
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`,
      });
      response.end(PDF);
      return;
    case "/files/Quarterly%20Report":
      response.writeHead(200, { "content-type": "application/pdf" });
      response.end(PDF);
      return;
    case "/to-canary":
      redirect(302, `http://127.0.0.1:${canary.port}/secret`);
      return;
    case "/to-canary-name":
      redirect(307, `http://loopback.test:${canary.port}/secret`);
      return;
    case "/to-ftp":
      redirect(302, "ftp://127.0.0.1/file.pdf");
      return;
    case "/relative":
      redirect(301, "/report.pdf");
      return;
    case "/new-connection":
      redirect(302, "/report.pdf", true);
      return;
    case "/loop":
      redirect(302, `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}`);
      return;
    case "/missing":
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("secret-body-text");
      return;
    case "/no-answer":
      return; // never answers; the test's deadline must end it
    case "/stalled-body":
      response.writeHead(200, { "content-type": "application/pdf" });
      response.write(PDF.subarray(0, 4));
      return;
    case "/big-declared":
      response.writeHead(200, { "content-type": "application/pdf", "content-length": 1_000_000 });
      response.write(Buffer.alloc(1000));
      return; // the rest never comes: the client must refuse from the header alone
    case "/big-chunked":
      response.writeHead(200, { "content-type": "application/pdf" });
      for (let i = 0; i < 16; i++) response.write(Buffer.alloc(1024, i));
      response.end();
      return;
    case "/whoami":
      response.end("files");
      return;
    case "/webhook": {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        webhooks.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
        const status = Number(url.searchParams.get("status") ?? 204);
        response.writeHead(
          status,
          status >= 300 && status < 400 ? { location: `http://127.0.0.1:${canary.port}/` } : {},
        );
        response.end(url.searchParams.has("big") ? Buffer.alloc(4 * 1024 * 1024) : "ok");
      });
      return;
    }
    default:
      response.writeHead(404);
      response.end();
  }
}

beforeAll(async () => {
  files = await startServer(route);
  canary = await startCanary();
  // Same port as the file server, on another loopback address: where a rebound DNS answer would lead.
  shadow = await startCanary("127.0.0.2", files.port);
  canary6 = await startCanary("::1").catch(() => undefined);
});

afterAll(async () => {
  await Promise.all([files, canary, shadow, canary6].map((server) => server?.close()));
});

const allowFiles = () => parseAllowlist(`127.0.0.1:${files.port}`);
// A generous default: CI shares 2 cores with engines, and only the timeout tests pass a short one.
const download = (url: string, options: Partial<Parameters<typeof downloadUrl>[1]> = {}) =>
  downloadUrl(url, { allowlist: allowFiles(), maxBytes: 1_000_000, timeoutMs: 30_000, ...options });

describe("downloadUrl with the default (empty) allowlist", () => {
  it("refuses loopback in every spelling, and nothing reaches the canary", async () => {
    const fake = fakeResolver({ "loopback.test": ["127.0.0.1"] });
    // "localhost" goes to the system resolver (it answers from /etc/hosts); other names to the fake.
    const resolve = (host: string) => (host === "localhost" ? systemResolver(host) : fake.resolve(host));
    const port = canary.port;
    const urls = [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${canary6?.port ?? port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `HTTP://127.0.0.1:${port}/`,
      `http://loopback.test:${port}/`,
    ];
    for (const url of urls) {
      const error = await rejection(
        downloadUrl(url, { allowlist: none, maxBytes: 1000, timeoutMs: 2000, resolve }),
      );
      expect(error.code, url).toBe("blocked_url");
      expect(error.detail, url).toMatch(/loopback/);
    }
    expect(canary.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
  });

  it("names the address, the host and the range", async () => {
    const { resolve } = fakeResolver({ "files.example.test": ["93.184.216.34", "10.0.0.1"] });
    const error = await rejection(
      downloadUrl("https://files.example.test/a.pdf", {
        allowlist: none,
        maxBytes: 1,
        timeoutMs: 1000,
        resolve,
      }),
    );
    expect(error.detail).toBe(
      "the address 10.0.0.1 of files.example.test is in a private network (10.0.0.0/8); " +
        "only public internet addresses are allowed",
    );
  });

  it("refuses other schemes", async () => {
    for (const url of ["ftp://127.0.0.1/file.pdf", "file:///etc/passwd"]) {
      const error = await rejection(download(url));
      expect(error).toMatchObject({
        code: "blocked_url",
        detail: expect.stringContaining("only http and https"),
      });
    }
  });

  it("reports a name that does not resolve as unreachable", async () => {
    const { resolve } = fakeResolver({});
    const error = await rejection(download("http://nowhere.test/a.pdf", { resolve }));
    expect(error).toMatchObject({ code: "unreachable_url" });
    expect(error.detail).toContain("could not be resolved (ENOTFOUND)");
  });
});

describe("downloadUrl from an allowlisted loopback server", () => {
  it("downloads, naming the file from the path", async () => {
    const result = await download(`http://127.0.0.1:${files.port}/report.pdf`);
    expect(result).toMatchObject({
      fileName: "report.pdf",
      contentType: "application/pdf",
      declaredLength: PDF.length,
      finalUrl: `http://127.0.0.1:${files.port}/report.pdf`,
    });
    expect(await text(result.body)).toBe(PDF.toString());
  });

  it("names the file from Content-Disposition, and from the Content-Type", async () => {
    const disposition = await download(`http://127.0.0.1:${files.port}/disposition`);
    expect(disposition.fileName).toBe("résumé.pdf");
    await text(disposition.body);
    const typed = await download(`http://127.0.0.1:${files.port}/files/Quarterly%20Report`);
    expect(typed).toMatchObject({ fileName: "Quarterly Report.pdf", declaredLength: undefined });
    await text(typed.body);
  });

  it("follows a redirect on the allowed server", async () => {
    const result = await download(`http://127.0.0.1:${files.port}/relative`);
    expect(result.finalUrl).toBe(`http://127.0.0.1:${files.port}/report.pdf`);
    expect(await text(result.body)).toBe(PDF.toString());
  });

  it("blocks a redirect to a loopback port that is not allowlisted, sending nothing there", async () => {
    const { resolve } = fakeResolver({ "loopback.test": ["127.0.0.1"] });
    for (const path of ["/to-canary", "/to-canary-name"]) {
      const error = await rejection(download(`http://127.0.0.1:${files.port}${path}`, { resolve }));
      expect(error.code, path).toBe("blocked_url");
    }
    const ftp = await rejection(download(`http://127.0.0.1:${files.port}/to-ftp`));
    expect(ftp.code).toBe("blocked_url");
    expect(canary.connections).toBe(0);
  });

  it("stops after too many redirects", async () => {
    const error = await rejection(download(`http://127.0.0.1:${files.port}/loop`, { maxRedirects: 3 }));
    expect(error).toMatchObject({ code: "unreachable_url", detail: "too many redirects (more than 3)" });
    expect(files.requests.filter((request) => request.startsWith("GET /loop"))).toHaveLength(4);
  });

  it("reports an HTTP error with its status and never the body", async () => {
    const error = await rejection(download(`http://127.0.0.1:${files.port}/missing`));
    expect(error.code).toBe("unreachable_url");
    expect(error.detail).toContain("the server answered 404");
    expect(error.message).not.toContain("secret-body-text");
  });

  it("times out a server that does not answer, and one that stalls mid-body", async () => {
    const started = Date.now();
    const error = await rejection(download(`http://127.0.0.1:${files.port}/no-answer`, { timeoutMs: 300 }));
    expect(error).toMatchObject({
      code: "unreachable_url",
      detail: expect.stringContaining("within 300 ms"),
    });
    // Cut off by the 300 ms timeout, not by the server, which never answers (bound loose for a loaded CI).
    expect(Date.now() - started).toBeLessThan(10_000);

    const stalled = await download(`http://127.0.0.1:${files.port}/stalled-body`, { timeoutMs: 300 });
    const bodyError = await rejection(text(stalled.body));
    expect(bodyError).toMatchObject({ code: "unreachable_url", detail: expect.stringContaining("300 ms") });
  });

  it("refuses an announced length over the limit before reading the body", async () => {
    const started = Date.now();
    const error = await rejection(
      download(`http://127.0.0.1:${files.port}/big-declared`, { maxBytes: 4096 }),
    );
    expect(error.code).toBe("too_large");
    expect(error.detail).toBe("the server announced 1000000 bytes, over the limit of 4096 bytes");
    // The rest of the body never comes: reading it would hang, so an answer at all shows the header decided.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("errors the stream when a body without a length grows past the limit", async () => {
    const result = await download(`http://127.0.0.1:${files.port}/big-chunked`, { maxBytes: 4096 });
    expect(result.declaredLength).toBeUndefined();
    const error = await rejection(text(result.body));
    expect(error).toMatchObject({ code: "too_large", detail: expect.stringContaining("4096 bytes") });
  });

  it("lets the caller's signal abort with the caller's reason", async () => {
    const controller = new AbortController();
    const pending = download(`http://127.0.0.1:${files.port}/no-answer`, { signal: controller.signal });
    controller.abort(new Error("job cancelled"));
    await expect(pending).rejects.toThrow("job cancelled");
  });
});

describe("pinned connections", () => {
  it("connects to the address it checked, even when DNS answers differently later", async () => {
    let answers = 0;
    const { resolve, calls } = fakeResolver({
      "rebind.test": () => (answers++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"]),
    });
    const allowlist = parseAllowlist("127.0.0.1/32");
    // The redirect closes the connection, so the second hop opens a new one to the same name.
    const result = await download(`http://rebind.test:${files.port}/new-connection`, { allowlist, resolve });
    expect(await text(result.body)).toBe(PDF.toString());
    expect(calls).toEqual(["rebind.test"]);
    expect(shadow.connections).toBe(0);

    const direct = await download(`http://rebind.test:${files.port}/whoami`, {
      allowlist: parseAllowlist("127.0.0.0/8"),
      resolve: fakeResolver({ "rebind.test": ["127.0.0.1"] }).resolve,
    });
    expect(await text(direct.body)).toBe("files");
  });

  it("sends the host name as SNI and verifies the certificate against it", async () => {
    const tls = await startTlsServer();
    try {
      const { resolve } = fakeResolver({ "tls.test": ["127.0.0.1"] });
      const error = await rejection(
        download(`https://tls.test:${tls.port}/a.pdf`, { allowlist: parseAllowlist("tls.test"), resolve }),
      );
      expect(error.code).toBe("unreachable_url");
      expect(error.detail).toMatch(
        /^the TLS connection to tls\.test:\d+ failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED)/,
      );
      expect(tls.servernames).toContain("tls.test");
      expect(tls.requests).toEqual([]);
    } finally {
      await tls.close();
    }
  });
});

describe("postJson", () => {
  const post = (query: string, options: Partial<Parameters<typeof postJson>[3]> = {}) =>
    postJson(
      `http://127.0.0.1:${files.port}/webhook${query}`,
      '{"id":"job"}',
      { "SVC-Signature": "t=1,v1=abc" },
      { allowlist: allowFiles(), timeoutMs: 30_000, ...options },
    );

  it("delivers and returns the status", async () => {
    expect(await post("?status=200")).toEqual({ status: 200 });
    expect(webhooks.at(-1)).toMatchObject({
      body: '{"id":"job"}',
      headers: { "content-type": "application/json", "svc-signature": "t=1,v1=abc" },
    });
    expect(await post("?status=204&big=1")).toEqual({ status: 204 });
  });

  it("returns 5xx and 3xx as statuses, without following the redirect", async () => {
    expect(await post("?status=503")).toEqual({ status: 503 });
    expect(await post("?status=302")).toEqual({ status: 302 });
    expect(canary.connections).toBe(0);
  });

  it("times out and reports a refused connection as unreachable", async () => {
    const slow = await rejection(
      postJson(
        `http://127.0.0.1:${files.port}/no-answer`,
        "{}",
        {},
        { allowlist: allowFiles(), timeoutMs: 300 },
      ),
    );
    expect(slow).toMatchObject({ code: "unreachable_url", detail: expect.stringContaining("within 300 ms") });
    const port = await closedPort();
    const refused = await rejection(
      postJson(
        `http://127.0.0.1:${port}/`,
        "{}",
        {},
        { allowlist: parseAllowlist("127.0.0.1"), timeoutMs: 2000 },
      ),
    );
    expect(refused).toMatchObject({
      code: "unreachable_url",
      detail: expect.stringContaining("ECONNREFUSED"),
    });
  });

  it("blocks a private URL without an allowlist entry, sending nothing", async () => {
    const before = files.connections;
    const error = await rejection(post("?status=200", { allowlist: none }));
    expect(error.code).toBe("blocked_url");
    expect(files.connections).toBe(before);
  });
});

describe("postBytes", () => {
  const url = (query: string) => `http://127.0.0.1:${files.port}/webhook${query}`;

  it("sends the bytes with the caller's content type and reads the answer whole", async () => {
    const answer = await postBytes(
      url("?status=200"),
      Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]),
      { "Content-Type": "application/timestamp-query" },
      { allowlist: allowFiles(), timeoutMs: 30_000, maxAnswerBytes: 1024 },
    );
    expect(answer).toMatchObject({ status: 200, body: Buffer.from("ok") });
    expect(webhooks.at(-1)?.headers["content-type"]).toBe("application/timestamp-query");
  });

  it("fails an answer larger than maxAnswerBytes with too_large, and a private URL with blocked_url", async () => {
    const options = { allowlist: allowFiles(), timeoutMs: 30_000, maxAnswerBytes: 64 * 1024 };
    const large = await rejection(postBytes(url("?status=200&big=1"), Buffer.from("q"), {}, options));
    expect(large.code).toBe("too_large");
    const blocked = await rejection(
      postBytes(url(""), Buffer.from("q"), {}, { ...options, allowlist: none }),
    );
    expect(blocked.code).toBe("blocked_url");
  });
});

describe("checkUrl and checkHost", () => {
  it("checks without sending anything", async () => {
    const { resolve } = fakeResolver({
      "hooks.example.test": ["93.184.216.34"],
      "evil.test": ["169.254.169.254"],
    });
    expect(await checkUrl("https://hooks.example.test/in", { allowlist: none, resolve })).toEqual({
      url: "https://hooks.example.test/in",
      host: "hooks.example.test",
      port: 443,
      addresses: [{ address: "93.184.216.34", family: 4 }],
    });
    const error = await rejection(
      checkUrl("http://evil.test/latest/meta-data", { allowlist: none, resolve }),
    );
    expect(error.detail).toContain("169.254.0.0/16");
  });

  it("takes only IP answers from a resolver, so the socket never resolves on its own", async () => {
    const resolve = async () => [{ address: "internal.example", family: 4 }];
    const error = await rejection(
      checkUrl("http://files.internal/", { allowlist: parseAllowlist("files.internal"), resolve }),
    );
    expect(error).toMatchObject({
      code: "unreachable_url",
      detail: expect.stringContaining("not an IP address"),
    });
  });

  it("normalises a bare host the way the URL parser does", async () => {
    for (const host of ["0x7f.1", "2130706433", "[::1]", "::1", "::ffff:127.0.0.1", "localhost"]) {
      const error = await rejection(checkHost(host, 80, { allowlist: none }));
      expect(error.code, host).toBe("blocked_url");
    }
    await expect(checkHost("a/b", 80, { allowlist: none })).rejects.toThrow("not a valid host name");
    await expect(checkHost("x.test", 0, { allowlist: none })).rejects.toThrow("not a valid port");
    const { resolve } = fakeResolver({ "files.internal": ["10.0.0.7"] });
    expect(
      await checkHost("FILES.internal", 8443, { allowlist: parseAllowlist("files.internal:8443"), resolve }),
    ).toEqual({ host: "files.internal", port: 8443, addresses: [{ address: "10.0.0.7", family: 4 }] });
  });

  it("left the canaries untouched", () => {
    expect(canary.connections + shadow.connections + (canary6?.connections ?? 0)).toBe(0);
  });
});
