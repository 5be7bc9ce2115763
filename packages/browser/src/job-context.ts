import type { AllowList, Resolver } from "@octavo/net";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { type Interception, interceptRequests } from "./interception.js";
import { JobNetwork } from "./job-network.js";
import { errorText, type RendererLogger } from "./logger.js";
import { PolicyProxy } from "./policy-proxy.js";

export interface NetworkLimits {
  allowlist: AllowList;
  resolve: Resolver | undefined;
  maxBytes: number;
}

/**
 * Everything one job renders in: its own policy state and proxy, a fresh isolated browser context
 * that can only reach the network through that proxy, and a blank page with interception on. Made
 * ahead of the job it will serve (a new page costs a renderer process, ~100 ms), used by one job only,
 * then closed.
 */
export interface JobContext {
  readonly network: JobNetwork;
  readonly proxy: PolicyProxy;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly interception: Interception;
}

const closeContextMs = 5_000;

export async function openJobContext(
  browser: Browser,
  limits: NetworkLimits,
  logger: RendererLogger,
): Promise<JobContext> {
  const onLate = (error: unknown): void => logger.info({ err: errorText(error) }, "late browser error");
  const network = new JobNetwork(limits);
  const proxy = await PolicyProxy.start(network, (error) =>
    logger.warn({ err: errorText(error) }, "policy proxy error"),
  );
  let context: BrowserContext | undefined;
  try {
    context = await browser.createBrowserContext({
      proxyServer: proxy.url,
      // Chromium sends loopback straight out by default; "<-loopback>" sends it to the proxy too.
      proxyBypassList: ["<-loopback>"],
      downloadBehavior: { policy: "deny" },
    });
    const page = await context.newPage();
    page.on("dialog", (dialog) => {
      dialog.dismiss().catch(onLate);
    });
    // Requests are never answered by a service worker; one a page registers dies with the context.
    await page.setBypassServiceWorker(true);
    const interception = await interceptRequests(page, network, onLate);
    return { network, proxy, context, page, interception };
  } catch (error) {
    if (context) await closeContext(context, logger);
    await proxy.close();
    throw error;
  }
}

/** Closes the context (its pages and their renderers) and the proxy; false when the context hung. */
export async function closeJobContext(job: JobContext, logger: RendererLogger): Promise<boolean> {
  const closed = await closeContext(job.context, logger);
  await job.proxy.close();
  return closed;
}

async function closeContext(context: BrowserContext, logger: RendererLogger): Promise<boolean> {
  const closing = context.close().then(
    () => true,
    (error: unknown) => {
      // The context of a browser that is gone is closed already.
      if (!context.browser().connected) return true;
      logger.warn({ err: errorText(error) }, "closing the browser context failed");
      return false;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), closeContextMs);
  });
  const closed = await Promise.race([closing, gaveUp]);
  clearTimeout(timer);
  return closed;
}
