import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type AllowList, type Resolver, untilAborted } from "@octavo/net";
import { browserGone, jobStopped, renderFailed, renderTimeout, unreadableInput } from "./failures.js";
import { closeJobContext, type JobContext, openJobContext } from "./job-context.js";
import { defaultExecutablePath } from "./launch.js";
import { errorText, type RendererLogger, silentLogger } from "./logger.js";
import type { HtmlRenderOptions } from "./options.js";
import { type PageSource, renderJob } from "./render-job.js";
import { uploadContentType } from "./upload.js";
import { type Lease, WarmBrowser } from "./warm-browser.js";

export interface HtmlRendererOptions {
  /** Private hosts the operator lets pages reach (OCTAVO_URL_ALLOWLIST), from parseAllowlist. */
  allowlist: AllowList;
  /** DNS for every host the page asks for; tests inject one so no query leaves the machine. */
  resolve?: Resolver;
  /** The browser is replaced after this many jobs. */
  maxJobsPerBrowser: number;
  /** Whole render (browser start included when it is cold); beyond it the job fails with timeout. */
  renderTimeoutMs: number;
  /** A page that prints to more pages fails with conversion_failed. */
  maxPages: number;
  /** Bytes the page may load from the network in total; later requests fail like blocked ones. */
  maxBytes: number;
  /** Chromium profiles live here, one fresh directory per browser. */
  workDir: string;
  /** Default /usr/bin/chromium. */
  executablePath?: string;
  logger?: RendererLogger;
}

export type RenderResult = { pages: number };

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`HtmlRenderer: ${name} must be a positive integer`);
  return value;
}

/**
 * HTML and URL to PDF with one warm Chromium per process and a fresh isolated context per job. Every
 * request a page makes goes through the outbound policy of @octavo/net (see render-job.ts); failures
 * are JobFailure (conversion_failed, invalid_input, timeout).
 */
export class HtmlRenderer {
  readonly #options: HtmlRendererOptions;
  readonly #logger: RendererLogger;
  readonly #browsers: WarmBrowser<JobContext>;

  constructor(options: HtmlRendererOptions) {
    positiveInteger("maxJobsPerBrowser", options.maxJobsPerBrowser);
    positiveInteger("renderTimeoutMs", options.renderTimeoutMs);
    positiveInteger("maxPages", options.maxPages);
    positiveInteger("maxBytes", options.maxBytes);
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    const logger = this.#logger;
    const network = { allowlist: options.allowlist, resolve: options.resolve, maxBytes: options.maxBytes };
    this.#browsers = new WarmBrowser({
      executablePath: options.executablePath ?? defaultExecutablePath,
      workDir: options.workDir,
      maxJobsPerBrowser: options.maxJobsPerBrowser,
      // Longer than any job, so a wedged CDP call is ended by the job's own timeout first.
      protocolTimeoutMs: options.renderTimeoutMs + 30_000,
      logger,
      prepare: (browser) => openJobContext(browser, network, logger),
      dispose: async (job) => {
        await closeJobContext(job, logger);
      },
    });
  }

  /** Browsers started so far (1 while the first is warm); for tests and metrics. */
  get browserLaunches(): number {
    return this.#browsers.launches;
  }

  /** Renders a web page; its address is checked again here, as DNS may answer differently by now. */
  renderUrl(
    url: string,
    options: HtmlRenderOptions,
    outPath: string,
    signal?: AbortSignal,
  ): Promise<RenderResult> {
    return this.#run({ kind: "url", url }, options, outPath, signal);
  }

  /** Renders an uploaded HTML file, served from a private in-memory origin (never from file://). */
  async renderHtml(
    htmlPath: string,
    options: HtmlRenderOptions,
    outPath: string,
    signal?: AbortSignal,
  ): Promise<RenderResult> {
    let body: Buffer;
    try {
      body = await readFile(htmlPath);
    } catch (error) {
      throw unreadableInput(basename(htmlPath), error);
    }
    const page = { body, contentType: uploadContentType(body) };
    return this.#run({ kind: "upload", page }, options, outPath, signal);
  }

  /** Closes the browser; jobs still running fail. */
  close(): Promise<void> {
    return this.#browsers.close();
  }

  async #run(
    source: PageSource,
    options: HtmlRenderOptions,
    outPath: string,
    signal: AbortSignal | undefined,
  ): Promise<RenderResult> {
    if (signal?.aborted) throw jobStopped(signal.reason);
    const timeoutMs = this.#options.renderTimeoutMs;
    const deadline = performance.now() + timeoutMs;
    const job = new AbortController();
    const timer = setTimeout(() => job.abort(renderTimeout(timeoutMs)), timeoutMs);
    const onStop = (): void => job.abort(jobStopped(signal?.reason));
    signal?.addEventListener("abort", onStop, { once: true });
    let lease: Lease<JobContext> | undefined;
    const onGone = (): void => job.abort(browserGone("the browser disconnected during the job"));
    try {
      const leased = await this.#late(this.#browsers.lease(), job.signal, (unused) => unused.release());
      lease = leased;
      leased.browser.once("disconnected", onGone);
      const context = await this.#late(leased.take(), job.signal, (unused) =>
        closeJobContext(unused, this.#logger),
      );
      const run = { signal: job.signal, logger: this.#logger, onStuck: () => leased.discard() };
      const limits = { maxPages: this.#options.maxPages, maxBytes: this.#options.maxBytes, deadline };
      return await renderJob(run, context, source, options, limits, outPath);
    } catch (error) {
      if (job.signal.aborted) throw job.signal.reason;
      if (lease && !lease.browser.connected) throw browserGone(errorText(error));
      throw renderFailed(error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onStop);
      lease?.browser.off("disconnected", onGone);
      lease?.release();
    }
  }

  /**
   * Waits for `promise` unless the job is stopped first; what arrives after that (a browser lease,
   * a prepared context) is handed to `giveBack` so nothing is left open.
   */
  async #late<T>(promise: Promise<T>, signal: AbortSignal, giveBack: (unused: T) => unknown): Promise<T> {
    const onLate = (error: unknown): void =>
      this.#logger.info({ err: errorText(error) }, "late browser error");
    return untilAborted(promise, signal, onLate).catch((error: unknown) => {
      if (signal.aborted) promise.then(giveBack, onLate);
      throw error;
    });
  }
}
