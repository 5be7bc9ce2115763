import { OutboundError } from "@octavo/net";
import type { HTTPRequest, Page } from "puppeteer-core";
import type { JobNetwork } from "./job-network.js";
import { uploadOrigin, uploadUrl } from "./upload.js";

/** Uploaded HTML: its bytes and the Content-Type to serve them with. */
export interface UploadedPage {
  body: Buffer;
  contentType: string;
}

export interface Interception {
  /** Set by the job that uses this page when it renders an upload. */
  upload: UploadedPage | undefined;
  /** Why the main frame's document (or a redirect hop of it) was refused, if it was. */
  mainRefusal: OutboundError | undefined;
  /** The host and port of the main document's latest request (the last redirect hop). */
  mainTarget: { host: string; port: number } | undefined;
  /** Requests refused for their scheme (file:, ftp:, …) or an unreadable URL, for the job's log line. */
  refused: number;
}

const uploadHost = new URL(uploadOrigin).hostname;
const defaultPort = (protocol: string): number => (protocol === "https:" ? 443 : 80);

/**
 * The first layer: every request the page makes (redirect hops included) is paused and decided in
 * Node. Uploaded HTML is answered from memory; data: and blob: stay inside the page; any other scheme
 * than http(s) (file:, ftp:, chrome:, filesystem:, …) is refused; http(s) targets are checked against
 * the job's policy, so a refused subresource is an ordinary failed load. The policy proxy is the
 * second layer, for what interception does not see (WebSockets, service workers).
 */
export async function interceptRequests(
  page: Page,
  network: JobNetwork,
  onError: (error: unknown) => void,
): Promise<Interception> {
  const state: Interception = {
    upload: undefined,
    mainRefusal: undefined,
    mainTarget: undefined,
    refused: 0,
  };

  const decide = async (request: HTTPRequest): Promise<void> => {
    const url = URL.parse(request.url());
    const isMain = request.isNavigationRequest() && request.frame() === page.mainFrame();
    if (!url) {
      state.refused += 1;
      return request.abort("blockedbyclient");
    }
    if (url.hostname === uploadHost) {
      if (state.upload && isMain && url.href === uploadUrl) {
        return request.respond({
          status: 200,
          contentType: state.upload.contentType,
          headers: { "cache-control": "no-store" },
          body: state.upload.body,
        });
      }
      // Relative URLs of an uploaded page ("logo.png", "/etc/passwd") have nothing to load.
      return request.respond({ status: 404, contentType: "text/plain", body: "" });
    }
    if (url.protocol === "data:" || url.protocol === "blob:") return request.continue();
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      state.refused += 1;
      return request.abort("accessdenied");
    }
    const port = url.port === "" ? defaultPort(url.protocol) : Number(url.port);
    if (isMain) state.mainTarget = { host: url.hostname, port };
    try {
      await network.check(url.hostname, port);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (isMain) state.mainRefusal = error;
      return request.abort("blockedbyclient");
    }
    return request.continue();
  };

  await page.setRequestInterception(true);
  page.on("request", (request) => {
    decide(request).catch(onError);
  });
  return state;
}
