import { isUtf8 } from "node:buffer";
import sniffHtmlEncoding from "html-encoding-sniffer";

/**
 * Uploaded HTML is served to the page from this origin, answered from memory by request interception.
 * It is an ordinary (insecure) http origin: the page cannot reach file: URLs from it, its relative
 * URLs ("/etc/passwd", "logo.png") stay on it and are answered 404, and no service worker can register
 * on it. `.invalid` (RFC 6761) never resolves, so a request that slipped past interception would still
 * die at the policy proxy.
 */
export const uploadOrigin = "http://octavo-upload.invalid";
export const uploadUrl = `${uploadOrigin}/`;

const undeclared = "";

/**
 * The Content-Type to serve uploaded bytes with. A BOM or a `<meta charset>` is left to Chromium,
 * which decodes exactly as a browser opening the file would (UTF-16 with a BOM, windows-1251 declared
 * 40 KB into the file). With no declaration Chromium would guess windows-1252; an undeclared file that
 * is valid UTF-8 (what editors write today) is declared UTF-8 instead.
 */
export function uploadContentType(bytes: Uint8Array): string {
  const declared = sniffHtmlEncoding(bytes, { defaultEncoding: undeclared, maxPrescanBytes: Infinity });
  return declared === undeclared && isUtf8(bytes) ? "text/html; charset=utf-8" : "text/html";
}
