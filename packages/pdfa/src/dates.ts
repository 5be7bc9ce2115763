/** A moment as PDF/A validators read it: the instant, and whether a time zone was given. */
export interface ParsedDate {
  epochMs: number;
  zoned: boolean;
}

// D:YYYYMMDDHHmmSS followed by Z, or by +HH'mm' / -HH'mm'. Ghostscript 10.0 writes "Z00'00'", which the
// PDF 1.7 grammar tolerates but PDFBox Preflight cannot read (its 7.2 check then fails), so Z must end it.
const pdfDatePattern =
  /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:(Z)|([+-])(\d{2})(?:'(\d{2})'?)?)?$/;

/** A PDF date string (Info dictionary), or undefined when it is not in the form validators accept. */
export function parsePdfDate(text: string): ParsedDate | undefined {
  const match = pdfDatePattern.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, zulu, sign, offsetHours, offsetMinutes] = match;
  const offset =
    sign === undefined
      ? 0
      : (sign === "-" ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? 0));
  const local = Date.UTC(
    Number(year),
    Number(month ?? 1) - 1,
    Number(day ?? 1),
    Number(hour ?? 0),
    Number(minute ?? 0),
    Number(second ?? 0),
  );
  return { epochMs: local - offset * 60_000, zoned: zulu !== undefined || sign !== undefined };
}

const xmpDatePattern =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:(Z)|([+-])(\d{2}):(\d{2}))?)?)?)?$/;

/** An XMP date (ISO 8601 subset of the XMP specification), or undefined. */
export function parseXmpDate(text: string): ParsedDate | undefined {
  const match = xmpDatePattern.exec(text.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, zulu, sign, offsetHours, offsetMinutes] = match;
  const offset =
    sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const local = Date.UTC(
    Number(year),
    Number(month ?? 1) - 1,
    Number(day ?? 1),
    Number(hour ?? 0),
    Number(minute ?? 0),
    Number(second ?? 0),
  );
  return { epochMs: local - offset * 60_000, zoned: zulu !== undefined || sign !== undefined };
}

/** Ghostscript's "D:20260101120000Z00'00'" rewritten as "D:20260101120000+00'00'" (same length). */
export function fixGhostscriptDate(text: string): string {
  return text.replace(/^(D:\d{14})Z00'00'$/, "$1+00'00'");
}
