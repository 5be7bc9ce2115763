import { writeFile } from "node:fs/promises";
import { checkUrl, OutboundError, untilAborted } from "@octavo/net";
import type { HTTPResponse, Page } from "puppeteer-core";
import { pageNotLoaded, pageTooHeavy, refusedPage, renderFailed, tooManyPages } from "./failures.js";
import type { Interception, UploadedPage } from "./interception.js";
import { closeJobContext, type JobContext } from "./job-context.js";
import type { JobNetwork } from "./job-network.js";
import { errorText, type RendererLogger } from "./logger.js";
import { type HtmlRenderOptions, pdfOptions } from "./options.js";
import { countPdfPages } from "./page-count.js";
import { uploadUrl } from "./upload.js";

export type PageSource = { kind: "url"; url: string } | { kind: "upload"; page: UploadedPage };

export interface JobLimits {
  maxPages: number;
  maxBytes: number;
  /** When the job must be done (a performance.now() time); the signal aborts then. */
  deadline: number;
}

export interface JobRun {
  /** Aborts the job; its reason is the JobFailure to throw (timeout, stop, browser gone). */
  signal: AbortSignal;
  logger: RendererLogger;
  /** The job's context could not be closed: the browser should be replaced. */
  onStuck: () => void;
}

/** How long to wait after DOMContentLoaded for `load` and network idle before printing anyway. */
const maxSettleMs = 10_000;
/** Quiet time that counts as network idle: short, since `load` already covers the page's resources. */
const idleMs = 50;

/**
 * One conversion in `job`, a fresh isolated browser context whose only way out is the job's policy
 * proxy; closes it when done. Throws JobFailure.
 */
export async function renderJob(
  run: JobRun,
  job: JobContext,
  source: PageSource,
  options: HtmlRenderOptions,
  limits: JobLimits,
  outPath: string,
): Promise<{ pages: number }> {
  const { logger } = run;
  const { network, page, interception } = job;
  // A page that loads more than its budget stops the job at once: requests past the cap are cut by the
  // proxy, and the client gets a clear failure instead of a PDF silently missing parts.
  const heavy = new AbortController();
  network.onOverBudget = () => heavy.abort(pageTooHeavy(limits.maxBytes));
  const signal = AbortSignal.any([run.signal, heavy.signal]);
  const onLate = (error: unknown): void => logger.info({ err: errorText(error) }, "late browser error");
  const step = <T>(promise: Promise<T>): Promise<T> => untilAborted(promise, signal, onLate);
  const ms: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string): void => {
    const now = performance.now();
    ms[name] = Math.round(now - mark);
    mark = now;
  };
  try {
    if (signal.aborted) throw signal.reason;
    const address = source.kind === "url" ? await step(checkedPageUrl(source.url, network)) : uploadUrl;
    interception.upload = source.kind === "upload" ? source.page : undefined;
    // Before loading, so scripts and media queries see the requested media from the start.
    await step(page.emulateMediaType(options.media));
    const response = await step(open(page, address, interception, network, signal));
    if (source.kind === "url") refuseErrorAnswer(response, interception, network);
    lap("load");
    await step(settle(page, settleBudget(limits.deadline), logger));
    lap("settle");
    const remaining = limits.deadline - performance.now();
    const pdf = await step(page.pdf(pdfOptions(options, limits.maxPages, remaining)));
    lap("pdf");
    const pages = countPdfPages(pdf);
    if (pages === undefined) {
      throw renderFailed(new Error("the PDF Chromium wrote has no readable page tree"));
    }
    if (pages > limits.maxPages) throw tooManyPages(limits.maxPages);
    await writeFile(outPath, pdf);
    logger.info(
      {
        pages,
        ms,
        bytesLoaded: network.bytes,
        refusedByPolicy: network.refused,
        refusedScheme: interception.refused,
      },
      "html rendered",
    );
    return { pages };
  } finally {
    if (!(await closeJobContext(job, logger))) run.onStuck();
  }
}

/** The page address under the policy, resolved with the job's pinned answers; throws JobFailure. */
async function checkedPageUrl(url: string, network: JobNetwork): Promise<string> {
  try {
    return (await checkUrl(url, { allowlist: network.allowlist, resolve: network.resolve })).url;
  } catch (error) {
    if (error instanceof OutboundError) throw refusedPage(error);
    throw error;
  }
}

async function open(
  page: Page,
  address: string,
  interception: Interception,
  network: JobNetwork,
  signal: AbortSignal,
): Promise<HTTPResponse | null> {
  try {
    // No timeout of puppeteer's own: the job's deadline aborts the whole job instead.
    return await page.goto(address, { waitUntil: "domcontentloaded", timeout: 0 });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw refusalOfMain(interception, network) ?? pageNotLoaded(netError(error), errorText(error));
  }
}

/** Why the main document was refused, by interception (any redirect hop) or by the proxy. */
function refusalOfMain(interception: Interception, network: JobNetwork): Error | undefined {
  if (interception.mainRefusal) return refusedPage(interception.mainRefusal);
  const target = interception.mainTarget;
  const refusal = target ? network.refusalFor(target.host, target.port) : undefined;
  return refusal ? refusedPage(refusal.error) : undefined;
}

/** "net::ERR_NAME_NOT_RESOLVED", without the URL puppeteer appends (a query may hold secrets). */
function netError(error: unknown): string {
  const code = /net::ERR_[A-Z0-9_]+/.exec(errorText(error))?.[0];
  return code ? `the browser reported ${code}` : "the browser gave up on it";
}

/**
 * A URL job fails when the page answered with an HTTP error instead of printing the error page. A
 * 403 or 502 may be the policy proxy's own answer to a plain-http page it refused or could not reach:
 * then the recorded reason is the message.
 */
function refuseErrorAnswer(
  response: HTTPResponse | null,
  interception: Interception,
  network: JobNetwork,
): void {
  if (interception.mainRefusal) throw refusedPage(interception.mainRefusal);
  const status = response?.status() ?? 200;
  if (status === 403 || status === 502) {
    const refused = refusalOfMain(interception, network);
    if (refused) throw refused;
  }
  if (status >= 400) throw pageNotLoaded(`the server answered HTTP ${status}`);
}

function settleBudget(deadline: number): number {
  const remaining = deadline - performance.now();
  return Math.max(0, Math.min(maxSettleMs, remaining / 3));
}

/**
 * Waits for the load event and a quiet network, at most `budgetMs`, then lets the print go ahead
 * with whatever has arrived: a stylesheet that never answers must not hold the job.
 */
async function settle(page: Page, budgetMs: number, logger: RendererLogger): Promise<void> {
  const timeout = Math.max(1, Math.round(budgetMs));
  const [load, idle] = await Promise.allSettled([
    page.waitForFunction("document.readyState === 'complete'", { timeout, polling: 50 }),
    page.waitForNetworkIdle({ idleTime: idleMs, timeout, concurrency: 0 }),
  ]);
  if (load.status === "rejected" || idle.status === "rejected") {
    const reason = load.status === "rejected" ? load.reason : idle.status === "rejected" ? idle.reason : "";
    logger.info({ waitedMs: timeout, reason: errorText(reason) }, "printing before the page settled");
  }
}
