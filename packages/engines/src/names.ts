import { basename } from "node:path";

/** The client's file name, safe to put in a message: no directories, no control characters, not too long. */
export function displayName(name: string): string {
  const base = basename(name.replaceAll("\\", "/"))
    .replace(/\p{Cc}/gu, "")
    .trim();
  const shown = base === "" ? "the file" : base;
  return shown.length <= 120 ? shown : `${shown.slice(0, 117)}…`;
}

/** "report.pdf" → "report"; other short extensions go too, so "scan.docx" → "scan". */
export function stemOf(name: string): string {
  const base = displayName(name);
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, "");
  return stem === "" || stem === "the file" ? "document" : stem;
}

/** An output named like the input, always ending in .pdf. */
export function pdfNameLike(name: string): string {
  const base = displayName(name);
  return /\.pdf$/i.test(base) ? base : `${stemOf(name)}.pdf`;
}

/** Summarises an engine's complaints about a damaged input in one line. */
export function damageWarning(fileName: string, engine: string, messages: string[]): string {
  const shown = messages.slice(0, 3).join("; ");
  const more = messages.length > 3 ? `; and ${messages.length - 3} more` : "";
  const why = shown === "" ? "" : ` (${shown}${more})`;
  return `${fileName} is damaged; ${engine} reconstructed it${why}.`;
}

/** A title (a bookmark's, a generated document's) as a file name: no path separators or characters file systems refuse, not too long. */
export function safeFileName(title: string, fallback: string): string {
  const cleaned = title
    .normalize("NFC")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .replace(/[/\\:*?"<>|]+/g, "-")
    .replace(/\s+/g, " ")
    .replace(/^[\s.-]+|[\s.]+$/g, "");
  const short = [...cleaned].slice(0, 100).join("").trim();
  return short === "" ? fallback : short;
}

/** Names made unique in the order taken: a second "Notes" becomes "Notes (2)". */
export class UniqueNames {
  private readonly taken = new Map<string, number>();

  /** `extension` with its dot: ".pdf". */
  constructor(private readonly extension: string) {}

  take(base: string): string {
    const key = base.toLowerCase();
    const seen = (this.taken.get(key) ?? 0) + 1;
    this.taken.set(key, seen);
    return seen === 1 ? `${base}${this.extension}` : `${base} (${seen})${this.extension}`;
  }
}
