import { parse as parseContentDisposition } from "content-disposition";

/** The document types octavo takes, by media type, so a name without an extension still says what it is. */
const EXTENSION_BY_TYPE: ReadonlyMap<string, string> = new Map(
  Object.entries({
    "application/pdf": ".pdf",
    "application/msword": ".doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/rtf": ".rtf",
    "text/rtf": ".rtf",
    "text/plain": ".txt",
    "application/vnd.ms-powerpoint": ".ppt",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow": ".ppsx",
    "application/vnd.oasis.opendocument.presentation": ".odp",
    "application/vnd.ms-excel": ".xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.oasis.opendocument.spreadsheet": ".ods",
    "text/csv": ".csv",
    "text/html": ".html",
    "application/xhtml+xml": ".html",
  }),
);

const KNOWN_EXTENSIONS = new Set([...EXTENSION_BY_TYPE.values(), ".htm", ".pps"]);
const MAX_NAME_LENGTH = 200;

/** "application/PDF; charset=x" → ".pdf"; undefined for types octavo does not take. */
export function extensionForContentType(contentType: string | undefined): string | undefined {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  return essence === undefined ? undefined : EXTENSION_BY_TYPE.get(essence);
}

/** A remote name is untrusted: keep its last path part, drop control characters, cap its length. */
function cleanName(name: string | undefined): string | undefined {
  const last = name?.split(/[/\\]/).pop() ?? "";
  const cleaned = [...last]
    .filter((char) => char.charCodeAt(0) > 0x1f && char.charCodeAt(0) !== 0x7f)
    .join("")
    .trim();
  if (!cleaned || cleaned === "." || cleaned === "..") return undefined;
  if (cleaned.length <= MAX_NAME_LENGTH) return cleaned;
  const extension = /\.[A-Za-z0-9]{1,8}$/.exec(cleaned)?.[0] ?? "";
  return cleaned.slice(0, MAX_NAME_LENGTH - extension.length) + extension;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Header bytes reach us as Latin-1 characters. Many servers send a plain `filename="…"` in raw UTF-8 (as
 * browsers do in uploads): when the characters read as bytes are valid UTF-8, that is what they were, as
 * browsers decide too. A name with no byte over 0x7F, or that is not valid UTF-8, stays as it is.
 */
function utf8IfEncoded(name: string): string {
  if (!/[\x80-\xff]/.test(name) || /[\u{100}-\u{10ffff}]/u.test(name)) return name;
  try {
    return strictUtf8.decode(Buffer.from(name, "latin1"));
  } catch {
    return name; // really Latin-1
  }
}

function fromContentDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // The parser is lenient (never throws); filename* (RFC 8187, UTF-8) replaces filename when both are sent.
  const name = parseContentDisposition(header).parameters.filename;
  return cleanName(name === undefined ? undefined : utf8IfEncoded(name));
}

function fromUrlPath(url: URL): string | undefined {
  const segment = url.pathname
    .split("/")
    .filter((part) => part !== "")
    .pop();
  if (segment === undefined) return undefined;
  try {
    return cleanName(decodeURIComponent(segment));
  } catch (error) {
    // A malformed %-escape: the raw segment is still the best name there is.
    if (error instanceof URIError) return cleanName(segment);
    throw error;
  }
}

/**
 * The file name of a download: from Content-Disposition (RFC 6266, filename* included), else the last
 * path segment of the final URL (percent-decoded). When that name has no extension octavo knows and the
 * Content-Type is a document type, the matching extension is appended ("report" + application/pdf →
 * "report.pdf"; a URL with no path gives "download.pdf"). Undefined when nothing names the file.
 */
export function fileNameFor(input: {
  url: string | URL;
  contentDisposition?: string | undefined;
  contentType?: string | undefined;
}): string | undefined {
  const url = new URL(String(input.url));
  const name = fromContentDisposition(input.contentDisposition) ?? fromUrlPath(url);
  const extension = extensionForContentType(input.contentType);
  if (extension === undefined) return name;
  if (name === undefined) return `download${extension}`;
  const current = /(?<=.)\.[^.]+$/.exec(name)?.[0]?.toLowerCase();
  return current !== undefined && KNOWN_EXTENSIONS.has(current) ? name : `${name}${extension}`;
}
