import { basename } from "node:path";
import { displayName } from "@octavo/engines";

export { displayName };

/** ".docx" for "Report.DOCX"; "" when the name has no extension. */
export function extensionOf(name: string): string {
  const match = /(\.[A-Za-z0-9]{1,5})$/.exec(displayName(name));
  return match?.[1]?.toLowerCase() ?? "";
}

/** "report.docx" → "report.pdf": one PDF per input, named after it. */
export function pdfNameFor(name: string): string {
  const base = basename(name.replaceAll("\\", "/"))
    .replace(/\p{Cc}/gu, "")
    .trim();
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, "").trim();
  // A name of dots only would become a hidden file or a path step; keep it a plain file name.
  const safe = stem === "" || /^\.+$/.test(stem) ? "document" : stem;
  return `${truncateBytes(safe, maxStemBytes)}.pdf`;
}

// File names are limited to 255 bytes: leave room for ".pdf", and for the extension of the job's local copy.
const maxStemBytes = 200;

function truncateBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let kept = "";
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    kept += char;
  }
  return kept;
}
