import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { parseAllowlist } from "@octavo/net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HtmlRenderer } from "../src/index.js";
import {
  createTestRenderer,
  defaults,
  pdfText,
  startServer,
  type TestServer,
  tempDir,
  testResolver,
  writeHtml,
} from "./helpers.js";

// A 1×1 PNG.
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

/** Every way a page can make the browser send something, each aimed at `target` (an origin). */
function probes(target: string, tag: string): string {
  const ws = target.replace(/^http/, "ws");
  return `
    <img src="${target}/img-${tag}">
    <iframe src="${target}/iframe-${tag}"></iframe>
    <link rel="stylesheet" href="${target}/css-${tag}">
    <link rel="preload" as="image" href="${target}/preload-${tag}">
    <link rel="prefetch" href="${target}/prefetch-${tag}">
    <script src="${target}/script-${tag}"></script>
    <object data="${target}/object-${tag}"></object>
    <embed src="${target}/embed-${tag}">
    <video poster="${target}/poster-${tag}" src="${target}/video-${tag}"></video>
    <div style="background-image:url('${target}/bg-${tag}');width:10px;height:10px"></div>
    <style>@font-face{font-family:f${tag};src:url('${target}/font-${tag}')}</style>
    <p style="font-family:f${tag}">font probe</p>
    <form method="post" action="${target}/form-${tag}" target="sink-${tag}"><input name="a" value="b"></form>
    <iframe name="sink-${tag}"></iframe>
    <script>
      fetch("${target}/fetch-${tag}").catch(() => {});
      fetch("${target}/fetch-post-${tag}", { method: "POST", body: "x", mode: "no-cors" }).catch(() => {});
      try { const x = new XMLHttpRequest(); x.open("GET", "${target}/xhr-${tag}"); x.send(); } catch {}
      try { new WebSocket("${ws}/ws-${tag}"); } catch {}
      try { new EventSource("${target}/sse-${tag}"); } catch {}
      try { navigator.sendBeacon("${target}/beacon-${tag}", "x"); } catch {}
      try {
        const code = 'fetch("${target}/worker-${tag}").catch(() => {})';
        new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
      } catch {}
      document.forms[document.forms.length - 1].submit();
    </script>`;
}

describe("every request of a page passes the outbound policy", () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let canary: TestServer;
  let canary6: TestServer | undefined;
  let allowed: TestServer;
  let renderer: HtmlRenderer;
  let targets: string[];
  let allowlistText: string;

  beforeAll(async () => {
    work = await tempDir();
    canary = await startServer("127.0.0.1", (_req, res) => res.end("CANARY CONTENT"));
    canary6 = await startServer("::1", (_req, res) => res.end("CANARY CONTENT")).catch(() => undefined);
    allowed = await startServer("127.0.0.1", (req, res) => serveAllowed(req, res));
    const c = canary.port;
    targets = [
      `http://127.0.0.1:${c}`,
      `http://localhost:${c}`,
      `http://0x7f.1:${c}`,
      `http://2130706433:${c}`,
      `http://[::ffff:127.0.0.1]:${c}`,
      `http://canary.test:${c}`,
      `https://127.0.0.1:${c}`,
      ...(canary6 ? [`http://[::1]:${canary6.port}`] : []),
    ];
    allowlistText = `127.0.0.1:${allowed.port}`;
    ({ renderer } = createTestRenderer(work.path, {
      allowlist: parseAllowlist(allowlistText),
      resolve: testResolver({ localhost: ["127.0.0.1", "::1"], "canary.test": ["127.0.0.1"] }),
    }));
  });

  afterAll(async () => {
    await renderer.close();
    await Promise.all([canary.close(), canary6?.close(), allowed.close()]);
    await work.remove();
  });

  function serveAllowed(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://allowed");
    const to = url.searchParams.get("to");
    if (url.pathname === "/redirect" && to) {
      res.writeHead(302, { location: to }).end();
    } else if (url.pathname === "/asset.png") {
      res.writeHead(200, { "content-type": "image/png" }).end(png);
    } else if (url.pathname === "/style.css") {
      res.writeHead(200, { "content-type": "text/css" }).end('body::after { content: "STYLE LOADED" }');
    } else if (url.pathname === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<link rel="stylesheet" href="/style.css"><img src="/asset.png"><p>Allowed page</p>');
    } else if (url.pathname === "/sw-page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<p>Service worker page</p><script>navigator.serviceWorker.register("/sw.js")
        .then(() => { document.body.append("SW REGISTERED"); }, (e) => { document.body.append("SW FAILED " + e); });
        </script><iframe src="/hold"></iframe>`);
    } else if (url.pathname === "/sw.js") {
      const target = `http://127.0.0.1:${canary.port}`;
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(`self.addEventListener("install", (e) => e.waitUntil(fetch("${target}/sw-install").catch(() => 0)));
        self.addEventListener("activate", () => fetch("${target}/sw-activate").catch(() => 0));`);
    } else if (url.pathname === "/hold") {
      // Holds the load event while the service worker installs.
      setTimeout(() => res.end("held"), 1_500);
    } else {
      res.writeHead(404).end();
    }
  }

  async function uploadPage(name: string, body: string): Promise<string> {
    return writeHtml(work.path, name, `<!doctype html><meta charset="utf-8"><body><p>Probe page</p>${body}`);
  }

  const attackPage = (): string => {
    const a = `http://127.0.0.1:${allowed.port}`;
    const c = `http://127.0.0.1:${canary.port}`;
    const redirect = (path: string): string => `${a}/redirect?to=${encodeURIComponent(`${c}/${path}`)}`;
    return [
      `<img src="${a}/asset.png"><link rel="stylesheet" href="${a}/style.css">`,
      ...targets.map((target, i) => probes(target, `t${i}`)),
      `<img src="${redirect("redirect-img")}"><iframe src="${redirect("redirect-iframe")}"></iframe>`,
      `<script>fetch("${redirect("redirect-fetch")}", { mode: "no-cors" }).catch(() => {});</script>`,
    ].join("\n");
  };

  it("lets nothing reach a loopback canary outside the allowlist, by any address form or API", async () => {
    const input = await uploadPage("attack.html", attackPage());
    const out = join(work.path, "attack.pdf");
    await renderer.renderHtml(input, defaults, out);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(canary.requests).toEqual([]);
    expect(canary.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
    expect(canary6, "IPv6 loopback is available on this machine").toBeDefined();
    // The allowlisted server served the page's assets and the first hop of each redirect.
    expect(allowed.requests).toEqual(expect.arrayContaining(["GET /asset.png", "GET /style.css"]));
    expect(allowed.requests.filter((line) => line.startsWith("GET /redirect")).length).toBe(3);
    const text = await pdfText(out);
    expect(text).toMatch(/STYLE\s+LOADED/);
    expect(text).not.toContain("CANARY");
  });

  it("refuses a blocked page address at render time, whatever the submission check said", async () => {
    for (const url of [`http://127.0.0.1:${canary.port}/`, `http://canary.test:${canary.port}/`]) {
      const failure = await renderer.renderUrl(url, defaults, join(work.path, "blocked.pdf")).catch((e) => e);
      expect(failure).toBeInstanceOf(JobFailure);
      expect(failure).toMatchObject({ code: "conversion_failed" });
      expect((failure as JobFailure).message).toMatch(/^The page address is not allowed: .*loopback/);
    }
    expect(canary.connections).toBe(0);
  });

  it("refuses a page whose allowlisted address redirects to a blocked one", async () => {
    const to = encodeURIComponent(`http://127.0.0.1:${canary.port}/top`);
    const url = `http://127.0.0.1:${allowed.port}/redirect?to=${to}`;
    const failure = await renderer.renderUrl(url, defaults, join(work.path, "redirect.pdf")).catch((e) => e);
    expect(failure).toMatchObject({ code: "conversion_failed" });
    expect((failure as JobFailure).message).toMatch(/^The page address is not allowed/);
    expect(canary.connections).toBe(0);
  });

  it("renders an allowlisted page with its assets", async () => {
    const out = join(work.path, "allowed.pdf");
    const result = await renderer.renderUrl(`http://127.0.0.1:${allowed.port}/page.html`, defaults, out);
    expect(result.pages).toBe(1);
    const text = await pdfText(out);
    expect(text).toContain("Allowed page");
    expect(text).toMatch(/STYLE\s+LOADED/);
  });

  it("fails a page that answers with an HTTP error", async () => {
    const url = `http://127.0.0.1:${allowed.port}/missing`;
    const failure = await renderer.renderUrl(url, defaults, join(work.path, "404.pdf")).catch((e) => e);
    expect(failure).toMatchObject({
      code: "conversion_failed",
      message: expect.stringContaining("HTTP 404"),
    });
  });

  it("refuses non-web schemes as page addresses", async () => {
    for (const url of ["file:///etc/passwd", "ftp://127.0.0.1/", "chrome://version", "data:text/html,hi"]) {
      const failure = await renderer.renderUrl(url, defaults, join(work.path, "scheme.pdf")).catch((e) => e);
      expect(failure).toMatchObject({ code: "conversion_failed" });
      expect((failure as JobFailure).message).toContain("only http and https");
    }
  });

  it("keeps a service worker of an allowlisted page away from the canary", async () => {
    const out = join(work.path, "sw.pdf");
    await renderer.renderUrl(`http://127.0.0.1:${allowed.port}/sw-page.html`, defaults, out);
    expect(allowed.requests).toContain("GET /sw.js");
    expect(await pdfText(out)).toContain("SW REGISTERED");
    expect(canary.connections).toBe(0);
  });
  // Last: it proves the probes above would have reached the canary if the policy let them.
  it("control: the same page does reach the canary once it is allowlisted", async () => {
    const { renderer: open } = createTestRenderer(work.path, {
      allowlist: parseAllowlist(`${allowlistText},127.0.0.1:${canary.port}`),
      resolve: testResolver({ "canary.test": ["127.0.0.1"] }),
    });
    try {
      await open.renderHtml(
        await uploadPage("control.html", attackPage()),
        defaults,
        join(work.path, "c.pdf"),
      );
      await open.renderUrl(
        `http://127.0.0.1:${allowed.port}/sw-page.html`,
        defaults,
        join(work.path, "c2.pdf"),
      );
    } finally {
      await open.close();
    }
    const reached = new Set(canary.requests.map((line) => line.replace(/^\w+ \/|-t\d+$/g, "")));
    expect([...reached].sort()).toEqual(
      [
        ...["img", "iframe", "css", "preload", "prefetch", "script", "object", "embed", "poster", "video"],
        ...["bg", "font", "form", "fetch", "fetch-post", "xhr", "ws", "sse", "beacon", "worker"],
        ...["redirect-img", "redirect-iframe", "redirect-fetch", "sw-install", "sw-activate"],
      ].sort(),
    );
  });
});
