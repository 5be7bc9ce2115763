/** One moment as both places write it: "D:20260102030405+01'00'" (Info) and "2026-01-02T03:04:05+01:00" (XMP). */
interface DateParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  /** "Z", "+01:00", or "" when the writer gave no time zone. */
  zone: string;
}

const pdfDate = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:(Z)|([+-])(\d{2})'?(\d{2})?'?)?/;
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

/** The instant of an Info or XMP date (local dates without a zone read as UTC), or undefined. */
export function instantOf(text: string): number | undefined {
  const parts = partsFrom(pdfDate.exec(text.trim())) ?? partsFrom(xmpDate.exec(text.trim()));
  if (parts === undefined) return undefined;
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
