import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { parseAllowlist } from "@octavo/net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  corpusDir,
  createTestRenderer,
  defaults,
  type LogEntry,
  pdfInfo,
  pdfText,
  startServer,
  type TestServer,
  tempDir,
  writeHtml,
} from "./helpers.js";

const pages12 = join(corpusDir, "html", "gotenberg_pages-12.html");

/** The pid of every Chromium the renderer started, from its log. */
const pids = (logs: LogEntry[]): number[] =>
  logs.filter((entry) => entry.msg === "chromium started").map((entry) => Number(entry.obj.pid));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the warm browser", () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let server: TestServer;
  let hello: string;

  beforeAll(async () => {
    work = await tempDir();
    hello = await writeHtml(work.path, "hello.html", "<p>Hello warm browser</p>");
    server = await startServer("127.0.0.1", (req, res) => {
      if (req.url === "/slow") setTimeout(() => res.end("<p>slow page</p>"), 10_000);
      else if (req.url?.startsWith("/blob")) res.end(Buffer.alloc(150_000, 65));
      else if (req.url === "/heavy.html") res.end('<p>Heavy</p><img src="/blob?1">');
      else if (req.url === "/gallery.html") {
        res.end(`<p>Gallery</p>${[1, 2, 3, 4, 5].map((i) => `<img src="/blob?${i}">`).join("")}`);
      } else res.writeHead(404).end();
    });
  });

  afterAll(async () => {
    await server.close();
    await work.remove();
  });

  const out = (name: string): string => join(work.path, `${name}.pdf`);

  it("serves jobs from one warm browser and replaces it after maxJobsPerBrowser", async () => {
    const { renderer, logs } = createTestRenderer(work.path, { maxJobsPerBrowser: 3 });
    try {
      for (let i = 0; i < 3; i += 1) await renderer.renderHtml(hello, defaults, out(`warm-${i}`));
      expect(renderer.browserLaunches).toBe(1);
      const first = pids(logs)[0] ?? 0;
      await renderer.renderHtml(hello, defaults, out("warm-3"));
      expect(renderer.browserLaunches).toBe(2);
      // The retired browser is closed once its last job is done.
      await expect.poll(() => alive(first), { timeout: 10_000 }).toBe(false);
      expect(await pdfText(out("warm-3"))).toContain("Hello warm browser");
    } finally {
      await renderer.close();
    }
    for (const pid of pids(logs)) expect(alive(pid)).toBe(false);
  });

  it("runs jobs side by side in one browser", async () => {
    const { renderer } = createTestRenderer(work.path);
    try {
      const results = await Promise.all(
        [0, 1, 2, 3].map((i) => renderer.renderHtml(i % 2 ? hello : pages12, defaults, out(`side-${i}`))),
      );
      expect(results.map((result) => result.pages)).toEqual([12, 1, 12, 1]);
      expect(renderer.browserLaunches).toBe(1);
    } finally {
      await renderer.close();
    }
  });

  it("starts a new browser for the next job after the browser was killed between jobs", async () => {
    const { renderer, logs } = createTestRenderer(work.path);
    try {
      await renderer.renderHtml(hello, defaults, out("before-kill"));
      process.kill(pids(logs)[0] ?? 0, "SIGKILL");
      // Between jobs: the renderer has seen the browser go (a job that races the death is the crash case below).
      await expect
        .poll(() => logs.some((entry) => entry.msg === "chromium went away"), { timeout: 10_000 })
        .toBe(true);
      const result = await renderer.renderHtml(pages12, defaults, out("after-kill"));
      expect(result.pages).toBe(12);
      expect(renderer.browserLaunches).toBe(2);
    } finally {
      await renderer.close();
    }
  });

  it("fails only the running job when the browser crashes during it", async () => {
    const { renderer, logs } = createTestRenderer(work.path, {
      allowlist: parseAllowlist(`127.0.0.1:${server.port}`),
    });
    try {
      await renderer.renderHtml(hello, defaults, out("warm-up"));
      const running = renderer.renderUrl(`http://127.0.0.1:${server.port}/slow`, defaults, out("crashed"));
      const failure = running.catch((error: unknown) => error);
      await expect.poll(() => server.requests.includes("GET /slow"), { timeout: 5_000 }).toBe(true);
      process.kill(pids(logs)[0] ?? 0, "SIGKILL");
      const error = await failure;
      expect(error).toBeInstanceOf(JobFailure);
      expect(error).toMatchObject({ code: "conversion_failed" });
      expect((error as JobFailure).message).toMatch(/^The browser stopped while rendering/);
      const result = await renderer.renderHtml(hello, defaults, out("after-crash"));
      expect(result.pages).toBe(1);
      expect(renderer.browserLaunches).toBe(2);
    } finally {
      await renderer.close();
    }
  });

  it("stops a page that never finishes at the render timeout, and goes on with the next job", async () => {
    // Room for the next job's cold browser start on a loaded host, which counts against its timeout.
    const { renderer } = createTestRenderer(work.path, { renderTimeoutMs: 8_000 });
    try {
      const spin = await writeHtml(work.path, "spin.html", "<p>Spinning</p><script>for (;;) {}</script>");
      const started = performance.now();
      const error = await renderer.renderHtml(spin, defaults, out("spin")).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "timeout" });
      expect((error as JobFailure).message).toContain("within 8 s");
      expect(performance.now() - started).toBeLessThan(15_000);
      const result = await renderer.renderHtml(hello, defaults, out("after-spin"));
      expect(result.pages).toBe(1);
    } finally {
      await renderer.close();
    }
  });

  it("stops when the caller's signal aborts", async () => {
    const { renderer } = createTestRenderer(work.path, {
      allowlist: parseAllowlist(`127.0.0.1:${server.port}`),
    });
    try {
      const url = `http://127.0.0.1:${server.port}/slow`;
      const error = await renderer
        .renderUrl(url, defaults, out("aborted"), AbortSignal.timeout(1_000))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "timeout" });
      const already = await renderer
        .renderHtml(hello, defaults, out("aborted-2"), AbortSignal.abort())
        .catch((e: unknown) => e);
      expect(already).toMatchObject({ code: "timeout" });
    } finally {
      await renderer.close();
    }
  });

  it("refuses a page that prints to more than maxPages", async () => {
    const { renderer } = createTestRenderer(work.path, { maxPages: 5 });
    try {
      const error = await renderer.renderHtml(pages12, defaults, out("too-long")).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "conversion_failed" });
      expect((error as JobFailure).message).toContain("more than 5 pages");
      const fits = await renderer.renderHtml(hello, defaults, out("fits"));
      expect(fits.pages).toBe(1);
    } finally {
      await renderer.close();
    }
  });

  it("counts pages as poppler does, up to hundreds", async () => {
    const { renderer } = createTestRenderer(work.path, { maxPages: 250 });
    try {
      const many = await writeHtml(
        work.path,
        "many.html",
        `<style>p{break-after:page}</style>${Array.from({ length: 230 }, (_, i) => `<p>Page ${i + 1}</p>`).join("")}`,
      );
      const result = await renderer.renderHtml(many, defaults, out("many"));
      expect(result.pages).toBe(230);
      expect((await pdfInfo(out("many"))).pages).toBe(230);
    } finally {
      await renderer.close();
    }
  });

  it("fails a page that loads more than maxBytes, cutting its downloads", async () => {
    const { renderer, logs } = createTestRenderer(work.path, {
      allowlist: parseAllowlist(`127.0.0.1:${server.port}`),
      maxBytes: 400_000,
    });
    try {
      const gallery = `http://127.0.0.1:${server.port}/gallery.html`;
      const error = await renderer.renderUrl(gallery, defaults, out("gallery")).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "conversion_failed" });
      expect((error as JobFailure).message).toContain("more than 0.4 MB");
      const heavy = `http://127.0.0.1:${server.port}/heavy.html`;
      const ok = await renderer.renderUrl(heavy, defaults, out("heavy"));
      expect(ok.pages).toBe(1);
      const rendered = logs.find((entry) => entry.msg === "html rendered");
      expect(Number(rendered?.obj.bytesLoaded)).toBeGreaterThan(150_000);
    } finally {
      await renderer.close();
    }
  });

  it("says why a page address cannot be reached", async () => {
    const closed = await startServer("127.0.0.1", (_req, res) => res.end());
    await closed.close();
    const { renderer } = createTestRenderer(work.path, { allowlist: parseAllowlist("127.0.0.1") });
    try {
      const url = `http://127.0.0.1:${closed.port}/`;
      const error = await renderer.renderUrl(url, defaults, out("unreachable")).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "conversion_failed",
        message: `The page address could not be reached: could not connect to 127.0.0.1:${closed.port} (ECONNREFUSED)`,
      });
    } finally {
      await renderer.close();
    }
  });

  it("says invalid_input for an upload it cannot read", async () => {
    const { renderer } = createTestRenderer(work.path);
    try {
      const error = await renderer
        .renderHtml(join(work.path, "missing.html"), defaults, out("missing"))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "invalid_input", message: "missing.html could not be read." });
      expect(renderer.browserLaunches).toBe(0);
    } finally {
      await renderer.close();
    }
  });
});
