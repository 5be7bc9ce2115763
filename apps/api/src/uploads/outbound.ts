import { ApiError } from "@octavo/contracts";
import type { StoredFile } from "@octavo/core";
import { type AllowList, checkUrl, downloadUrl, OutboundError } from "@octavo/net";
import type { Outbound } from "../context.js";
import { cleanFileName, contentTypeOf } from "./file-names.js";
import type { InputSession } from "./input-session.js";
import { tooLarge } from "./parse-operation-request.js";

function asApiError(error: unknown, field: string, maxBytes?: number): unknown {
  if (!(error instanceof OutboundError)) return error;
  if (error.code === "too_large") return tooLarge(field, maxBytes ?? 0);
  return new ApiError(error.code, error.message, `${field}: ${error.detail}`);
}

/** A string that is no URL at all is a wrong input, not a blocked address. */
function requireUrl(url: string, field: string): void {
  if (URL.parse(url) !== null) return;
  throw new ApiError(
    "invalid_input",
    `${field} is not a URL.`,
    "Send an absolute http:// or https:// URL, e.g. https://example.com/report.pdf.",
  );
}

/**
 * URL inputs and URLs the service will call later, through the one outbound policy (@octavo/net):
 * no private addresses unless allowlisted, every redirect checked, the connection pinned to the
 * checked address, a deadline per URL and the plan's size limit while streaming into storage.
 */
export function createOutbound(options: { allowlist: AllowList; timeoutMs: number }): Outbound {
  return {
    async check(url, field) {
      requireUrl(url, field);
      try {
        await checkUrl(url, { allowlist: options.allowlist });
      } catch (error) {
        // Nothing is fetched now: a URL the service calls later is refused for where it points.
        if (error instanceof OutboundError && error.code === "unreachable_url") {
          throw new ApiError(
            "unreachable_url",
            `${field} cannot be called: ${error.detail}`,
            `${field}: ${error.detail}`,
          );
        }
        throw asApiError(error, field);
      }
    },

    async download(
      url: string,
      session: InputSession,
      position: number,
      maxBytes: number,
    ): Promise<StoredFile> {
      requireUrl(url, "url");
      const field = `url ${url}`;
      try {
        const fetched = await downloadUrl(url, {
          allowlist: options.allowlist,
          maxBytes,
          timeoutMs: options.timeoutMs,
        });
        const key = session.allocate(position);
        const write = session.store.put(key, fetched.body);
        session.writes.push(write);
        const { size } = await write;
        const name = cleanFileName(fetched.fileName, `download-${position + 1}`);
        return { name, size, contentType: contentTypeOf(name), storageKey: key };
      } catch (error) {
        throw asApiError(error, field, maxBytes);
      }
    },
  };
}
