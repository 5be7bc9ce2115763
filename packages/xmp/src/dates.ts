/*
 * PDF dates ("D:20260102030405+01'00'", the Info dictionary) and XMP dates
 * ("2026-01-02T03:04:05+01:00"): one parser for both, as metadata editing writes them and PDF/A
 * validation compares them.
 */

/** One moment as written: its fields, each given or defaulted, and its time zone. */
export interface DateParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  /** "Z", "+01:00", or "" when the writer gave no time zone. */
  zone: string;
}

/** A moment as PDF/A validators read it: the instant, and whether a time zone was given. */
export interface ParsedDate {
  epochMs: number;
  zoned: boolean;
}

// Readers take what writers produce, Ghostscript's "Z00'00'" and an unterminated "+01'00" included.
const pdfDate = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:(Z)|([+-])(\d{2})'?(\d{2})?'?)?/;
// PDF/A validators take only the PDF 1.7 grammar, ending at Z or at +HH'mm': Ghostscript 10.0's
// "Z00'00'" fails PDFBox Preflight's 7.2 check.
const strictPdfDate =
  /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:(Z)|([+-])(\d{2})(?:'(\d{2})'?)?)?$/;
const xmpDate =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:(Z)|([+-])(\d{2}):(\d{2}))?)?)?)?$/;

function partsFrom(match: RegExpExecArray | null): DateParts | undefined {
  if (match === null) return undefined;
  const [, year = "", month, day, hour, minute, second, zulu, sign, zoneHours, zoneMinutes] = match;
  // A zone given as "Z00'00'" (Ghostscript) or "+00'00'" is UTC; "-00'00'" is treated the same.
  const zone =
    zulu !== undefined ? "Z" : sign === undefined ? "" : `${sign}${zoneHours ?? "00"}:${zoneMinutes ?? "00"}`;
  return {
    year,
    month: month ?? "01",
    day: day ?? "01",
    hour: hour ?? "00",
    minute: minute ?? "00",
    second: second ?? "00",
    zone: zone === "+00:00" || zone === "-00:00" ? "Z" : zone,
  };
}

/** The instant of a moment; a local time without a zone reads as UTC. */
function epochOf(parts: DateParts): number {
  const local = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const zone = /^([+-])(\d{2}):(\d{2})$/.exec(parts.zone);
  if (zone === null) return local;
  const offsetMinutes = (zone[1] === "-" ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3]));
  return local - offsetMinutes * 60_000;
}

const parsed = (parts: DateParts | undefined): ParsedDate | undefined =>
  parts === undefined ? undefined : { epochMs: epochOf(parts), zoned: parts.zone !== "" };

/** A PDF date in the grammar PDF/A validators accept, or undefined. */
export function parsePdfDate(text: string): ParsedDate | undefined {
  return parsed(partsFrom(strictPdfDate.exec(text)));
}

/** An XMP date (the ISO 8601 subset of the XMP specification), or undefined. */
export function parseXmpDate(text: string): ParsedDate | undefined {
  return parsed(partsFrom(xmpDate.exec(text.trim())));
}

/** The instant of an Info or XMP date as writers produce them, or undefined. */
export function instantOf(text: string): number | undefined {
  const parts = partsFrom(pdfDate.exec(text.trim())) ?? partsFrom(xmpDate.exec(text.trim()));
  return parts === undefined ? undefined : epochOf(parts);
}

/** An Info date ("D:…") written as an XMP date, keeping its time zone; undefined when unreadable. */
export function pdfDateToXmp(text: string): string | undefined {
  const parts = partsFrom(pdfDate.exec(text.trim()));
  if (parts === undefined) return undefined;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${parts.zone}`;
}

/** An XMP date written as an Info date, keeping its time zone; undefined when unreadable. */
export function xmpDateToPdf(text: string): string | undefined {
  const parts = partsFrom(xmpDate.exec(text.trim()));
  if (parts === undefined) return undefined;
  const zone = parts.zone === "Z" ? "+00'00'" : parts.zone === "" ? "" : `${parts.zone.replace(":", "'")}'`;
  return `D:${parts.year}${parts.month}${parts.day}${parts.hour}${parts.minute}${parts.second}${zone}`;
}

/** `moment` (to the second, in UTC) in both forms. */
export function bothForms(moment: Date): { pdf: string; xmp: string } {
  const [date = "", time = ""] = moment.toISOString().slice(0, 19).split("T");
  return {
    pdf: `D:${date.replaceAll("-", "")}${time.replaceAll(":", "")}+00'00'`,
    xmp: `${date}T${time}Z`,
  };
}

/** Ghostscript's "D:20260101120000Z00'00'" rewritten as "D:20260101120000+00'00'" (same length). */
export function fixGhostscriptDate(text: string): string {
  return text.replace(/^(D:\d{14})Z00'00'$/, "$1+00'00'");
}
