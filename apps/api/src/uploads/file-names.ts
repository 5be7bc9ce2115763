import { extname } from "node:path";

const CONTENT_TYPES: Record<string, string> = {
  ".pdf": "application/pdf",
  ".doc": "application/msword",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".odt": "application/vnd.oasis.opendocument.text",
  ".rtf": "application/rtf",
  ".txt": "text/plain",
  ".ppt": "application/vnd.ms-powerpoint",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ".odp": "application/vnd.oasis.opendocument.presentation",
  ".pps": "application/vnd.ms-powerpoint",
  ".ppsx": "application/vnd.openxmlformats-officedocument.presentationml.slideshow",
  ".xls": "application/vnd.ms-excel",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".ods": "application/vnd.oasis.opendocument.spreadsheet",
  ".csv": "text/csv",
  ".html": "text/html",
  ".htm": "text/html",
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}

/**
 * A client's file name, made safe to store, show and reuse in output names: no directories, no
 * control characters, at most 200 characters (keeping the extension).
 */
export function cleanFileName(raw: string | undefined, fallback: string): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  const printable = Array.from(base).filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    return code >= 0x20 && code !== 0x7f;
  });
  const cleaned = printable.join("").trim().replace(/^\.+/, "");
  if (cleaned === "") return fallback;
  if (cleaned.length <= 200) return cleaned;
  const extension = extname(cleaned).slice(0, 20);
  return cleaned.slice(0, 200 - extension.length) + extension;
}
