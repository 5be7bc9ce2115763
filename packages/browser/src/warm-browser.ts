import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { OutboundError } from "@octavo/net";
import type { Browser } from "puppeteer-core";
import { launchChromium } from "./launch.js";
import { errorText, type RendererLogger } from "./logger.js";
import { PolicyProxy } from "./policy-proxy.js";

export interface WarmBrowserOptions<T> {
  executablePath: string;
  workDir: string;
  maxJobsPerBrowser: number;
  protocolTimeoutMs: number;
  logger: RendererLogger;
  /** Makes what a job renders in (a fresh context); one is kept ready for the next job. */
  prepare: (browser: Browser) => Promise<T>;
  /** Closes a prepared T no job took (its browser is going away). */
  dispose: (spare: T) => Promise<void>;
}

/**
 * A job's use of the browser: take() its prepared context once, release() when done, discard() when
 * the browser must be replaced.
 */
export interface Lease<T> {
  readonly browser: Browser;
  take(): Promise<T>;
  release(): void;
  discard(): void;
}

type Prepared<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Slot<T> {
  browser: Browser;
  userDataDir: string;
  jobs: number;
  active: number;
  /** No new jobs; disposed of once the last running job releases it. */
  retired: boolean;
  /** The context being made, or ready, for the next job. */
  spare: Promise<Prepared<T>> | undefined;
  disposal: Promise<void> | undefined;
}

const closeBrowserMs = 5_000;

/** The traffic of no job (Chromium's own update, time and account checks) may go nowhere. */
const refuseEverything = {
  check: async (host: string, port: number): Promise<never> => {
    throw new OutboundError("blocked_url", `${host}:${port} was asked for outside a job`);
  },
  received: () => false,
  unreachable: () => undefined,
};

/**
 * One warm Chromium per process, launched on first use. Jobs share it; it is replaced after
 * `maxJobsPerBrowser` jobs (memory and cache growth) and whenever it crashes or disconnects. A
 * replaced browser finishes the jobs it is running and is closed after the last one. Between jobs,
 * the context of the next one is made ahead (a new page costs a renderer process, ~100 ms).
 */
export class WarmBrowser<T> {
  readonly #options: WarmBrowserOptions<T>;
  #slot: Slot<T> | undefined;
  #launching: Promise<Slot<T>> | undefined;
  #denyProxy: Promise<PolicyProxy> | undefined;
  readonly #disposals = new Set<Promise<void>>();
  #closed = false;
  /** Browsers launched so far, for logs and tests. */
  launches = 0;

  constructor(options: WarmBrowserOptions<T>) {
    this.#options = options;
  }

  async lease(): Promise<Lease<T>> {
    const slot = await this.#usableSlot();
    slot.jobs += 1;
    slot.active += 1;
    if (slot.jobs >= this.#options.maxJobsPerBrowser) this.#retire(slot, "job limit reached");
    let released = false;
    return {
      browser: slot.browser,
      take: () => this.#take(slot),
      release: () => {
        if (released) return;
        released = true;
        slot.active -= 1;
        if (slot.retired && slot.active === 0) this.#dispose(slot);
        else this.#prepareSpare(slot);
      },
      discard: () => this.#retire(slot, "a job's browser context could not be closed", true),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const launching = this.#launching;
    if (launching) await launching.then(undefined, () => undefined);
    if (this.#slot) this.#retire(this.#slot, "renderer closed", true);
    await Promise.all(this.#disposals);
    const proxy = await this.#denyProxy;
    await proxy?.close();
  }

  /** The spare context if one is ready (or being made), else a new one. */
  async #take(slot: Slot<T>): Promise<T> {
    const spare = slot.spare;
    slot.spare = undefined;
    const ready = await spare;
    if (ready && !ready.ok) {
      this.#options.logger.warn({ err: errorText(ready.error) }, "preparing a browser context failed");
    }
    return ready?.ok ? ready.value : await this.#options.prepare(slot.browser);
  }

  /**
   * Begins the next job's context when no job is running: made alongside a running job it slows that
   * job's page load by as much as it saves (the browser process is the bottleneck).
   */
  #prepareSpare(slot: Slot<T>): void {
    if (slot.retired || slot.active > 0 || slot.spare !== undefined) return;
    slot.spare = this.#options.prepare(slot.browser).then(
      (prepared): Prepared<T> => ({ ok: true, value: prepared }),
      (error: unknown): Prepared<T> => ({ ok: false, error }),
    );
  }

  async #usableSlot(): Promise<Slot<T>> {
    // Two tries: a browser that dies while starting gets one replacement, not an endless loop.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (this.#closed) throw new Error("the HTML renderer is closed");
      if (this.#slot && !this.#slot.retired) return this.#slot;
      this.#launching ??= this.#launch().finally(() => {
        this.#launching = undefined;
      });
      const slot = await this.#launching;
      if (!slot.retired) return slot;
    }
    throw new JobFailure("conversion_failed", "The browser could not be started; try again later.", {
      detail: "chromium exited right after starting, twice",
    });
  }

  async #launch(): Promise<Slot<T>> {
    const { logger } = this.#options;
    this.#denyProxy ??= PolicyProxy.start(refuseEverything, (error) =>
      logger.warn({ err: errorText(error) }, "policy proxy error"),
    );
    const proxy = await this.#denyProxy;
    await mkdir(this.#options.workDir, { recursive: true });
    const userDataDir = await mkdtemp(join(this.#options.workDir, "chromium-"));
    const started = performance.now();
    let browser: Browser;
    try {
      browser = await launchChromium({
        executablePath: this.#options.executablePath,
        userDataDir,
        proxyUrl: proxy.url,
        protocolTimeoutMs: this.#options.protocolTimeoutMs,
      });
    } catch (error) {
      await rm(userDataDir, { recursive: true, force: true });
      throw new JobFailure("conversion_failed", "The browser could not be started; try again later.", {
        detail: errorText(error),
        cause: error,
      });
    }
    this.launches += 1;
    const slot: Slot<T> = {
      browser,
      userDataDir,
      jobs: 0,
      active: 0,
      retired: false,
      spare: undefined,
      disposal: undefined,
    };
    browser.once("disconnected", () => {
      if (!slot.retired || slot.active > 0)
        logger.warn({ pid: browser.process()?.pid }, "chromium went away");
      this.#retire(slot, "disconnected");
    });
    logger.info(
      { pid: browser.process()?.pid, ms: Math.round(performance.now() - started) },
      "chromium started",
    );
    this.#slot = slot;
    if (this.#closed) this.#retire(slot, "renderer closed", true);
    return slot;
  }

  #retire(slot: Slot<T>, why: string, now = false): void {
    if (this.#slot === slot) this.#slot = undefined;
    if (!slot.retired)
      this.#options.logger.info({ pid: slot.browser.process()?.pid, why }, "chromium retired");
    slot.retired = true;
    if (now || slot.active === 0) this.#dispose(slot);
  }

  #dispose(slot: Slot<T>): void {
    if (slot.disposal !== undefined) return;
    const disposal = this.#disposeSpare(slot)
      .then(() => stopBrowser(slot.browser))
      .then(() => rm(slot.userDataDir, { recursive: true, force: true }))
      .catch((error: unknown) =>
        this.#options.logger.warn({ err: errorText(error) }, "cleaning up after chromium failed"),
      );
    slot.disposal = disposal;
    this.#disposals.add(disposal);
    void disposal.finally(() => this.#disposals.delete(disposal));
  }

  async #disposeSpare(slot: Slot<T>): Promise<void> {
    const spare = slot.spare;
    slot.spare = undefined;
    const ready = await spare;
    if (ready?.ok) await this.#options.dispose(ready.value);
  }
}

/** Closes the browser politely, and kills its process group when that does not work in time. */
async function stopBrowser(browser: Browser): Promise<void> {
  const child = browser.process();
  const exited =
    !child || child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (browser.connected) {
    const closing = browser.close().then(
      () => true,
      () => false,
    );
    const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), closeBrowserMs).unref());
    if (await Promise.race([closing, timer])) return;
  }
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    // puppeteer starts Chromium detached, as the leader of its own process group: the group is the
    // browser with its renderers and nothing else.
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
  await exited;
}
