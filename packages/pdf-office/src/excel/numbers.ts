/**
 * What a table cell's text means to a spreadsheet: a number (with the number format that shows it as the
 * PDF did), an unambiguous date, or text. Anything doubtful stays text: a wrong number is worse than none.
 */
export type CellValue =
  | { kind: "number"; value: number; numFmt: string | undefined }
  | { kind: "date"; value: Date; numFmt: string }
  | { kind: "text"; value: string };

const currencySymbols = "$€£¥₹₩₽₺₪₫฿₴₦";
const spaceLike = /[\s\u00a0\u2007\u2009\u202f]/g;

export function parseCellText(raw: string): CellValue {
  const text = raw.trim();
  const asText: CellValue = { kind: "text", value: text };
  if (text === "" || text.length > 40) return asText;
  return parseDate(text) ?? parseNumber(text) ?? asText;
}

function parseNumber(text: string): CellValue | undefined {
  let body = text.replace(/[\u2212\u2013]/g, "-");
  let negative = false;
  const parens = /^\((.*)\)$/.exec(body);
  if (parens?.[1] !== undefined) {
    negative = true;
    body = parens[1].trim();
  }
  let currency: { symbol: string; before: boolean } | undefined;
  const leadingSymbol = new RegExp(`^(-?)\\s*([${currencySymbols}])\\s*(.*)$`).exec(body);
  const trailingSymbol = new RegExp(`^(.*?)\\s*([${currencySymbols}])$`).exec(body);
  if (leadingSymbol?.[2] !== undefined && leadingSymbol[3] !== undefined) {
    currency = { symbol: leadingSymbol[2], before: true };
    body = `${leadingSymbol[1] ?? ""}${leadingSymbol[3]}`;
  } else if (trailingSymbol?.[1] !== undefined && trailingSymbol[2] !== undefined) {
    currency = { symbol: trailingSymbol[2], before: false };
    body = trailingSymbol[1];
  }
  const percent = body.endsWith("%");
  if (percent) body = body.slice(0, -1).trim();
  if (percent && currency !== undefined) return undefined;
  if (body.startsWith("-") || body.startsWith("+")) {
    if (negative) return undefined;
    negative = body.startsWith("-");
    body = body.slice(1).trim();
  }
  const parsed = parseUnsigned(body);
  if (parsed === undefined) return undefined;
  const value = (negative ? -parsed.value : parsed.value) / (percent ? 100 : 1);
  return { kind: "number", value, numFmt: formatFor(parsed, { percent, currency, parens: !!parens }) };
}

interface Unsigned {
  value: number;
  decimals: number;
  grouped: boolean;
}

/** Digits with optional grouping (",", ".", spaces, "'") and one decimal mark ("." or ","). */
function parseUnsigned(body: string): Unsigned | undefined {
  const compact = body.replace(spaceLike, " ");
  if (/^\d+(\.\d+)?[eE][-+]?\d+$/.test(compact)) {
    return { value: Number(compact), decimals: 2, grouped: false };
  }
  if (!/^[\d.,' ]+$/.test(compact) || !/^\d/.test(compact) || !/\d$/.test(compact)) return undefined;
  const lastDot = compact.lastIndexOf(".");
  const lastComma = compact.lastIndexOf(",");
  let decimalMark: "." | "," | undefined;
  if (lastDot >= 0 && lastComma >= 0) decimalMark = lastDot > lastComma ? "." : ",";
  else if (lastDot >= 0) decimalMark = count(compact, ".") === 1 ? "." : undefined;
  else if (lastComma >= 0) {
    // "1,234" is a thousand (English grouping); "1,5" and "12,75" are decimal commas.
    const single = count(compact, ",") === 1;
    const threeAfter = /,\d{3}$/.test(compact);
    decimalMark = single && !threeAfter ? "," : undefined;
  }
  const markAt = decimalMark === undefined ? -1 : compact.lastIndexOf(decimalMark);
  const integerPart = markAt < 0 ? compact : compact.slice(0, markAt);
  const fraction = markAt < 0 ? "" : compact.slice(markAt + 1);
  if (!/^\d*$/.test(fraction) || (markAt >= 0 && fraction === "")) return undefined;
  const digits = ungroup(integerPart);
  if (digits === undefined) return undefined;
  // Leading zeros ("007", "01234") are codes, and more than 15 digits lose precision: both stay text.
  if (/^0\d/.test(digits) || digits.length + fraction.length > 15) return undefined;
  return {
    value: Number(`${digits}.${fraction || "0"}`),
    decimals: fraction.length,
    grouped: digits.length !== integerPart.length,
  };
}

/** "1,234,567" / "1.234.567" / "1 234 567" / "1'234'567" / "12,34,567" → "1234567"; anything else fails. */
function ungroup(integerPart: string): string | undefined {
  if (/^\d+$/.test(integerPart)) return integerPart;
  const separators = new Set(integerPart.replace(/\d/g, ""));
  if (separators.size !== 1) return undefined;
  const [separator = ""] = [...separators];
  const groups = integerPart.split(separator);
  const western =
    /^\d{1,3}$/.test(groups[0] ?? "") && groups.slice(1).every((group) => /^\d{3}$/.test(group));
  const indian =
    separator === "," &&
    /^\d{1,2}$/.test(groups[0] ?? "") &&
    groups.slice(1, -1).every((group) => /^\d{2}$/.test(group)) &&
    /^\d{3}$/.test(groups[groups.length - 1] ?? "");
  return western || indian ? groups.join("") : undefined;
}

function formatFor(
  parsed: Unsigned,
  how: { percent: boolean; currency: { symbol: string; before: boolean } | undefined; parens: boolean },
): string | undefined {
  const fraction = parsed.decimals > 0 ? `.${"0".repeat(Math.min(parsed.decimals, 10))}` : "";
  if (how.percent) return `0${fraction}%`;
  let format = `${parsed.grouped ? "#,##0" : "0"}${fraction}`;
  if (how.currency !== undefined) {
    const symbol = `"${how.currency.symbol}"`;
    format = how.currency.before ? `${symbol}${format}` : `${format} ${symbol}`;
  }
  if (how.parens) return `${format};(${format})`;
  if (!parsed.grouped && parsed.decimals === 0 && how.currency === undefined) return undefined;
  return format;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

const months = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** ISO dates and dates that name their month; "03/04/2024" is ambiguous (March or April) and stays text. */
function parseDate(text: string): CellValue | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (iso) return dateValue(Number(iso[1]), Number(iso[2]), Number(iso[3]), "yyyy-mm-dd");
  const dayFirst = /^(\d{1,2})[.\s-]+([A-Za-z]{3,9})\.?[,\s-]+(\d{4})$/.exec(text);
  if (dayFirst) {
    return dateValue(
      Number(dayFirst[3]),
      monthOf(dayFirst[2]),
      Number(dayFirst[1]),
      dayMonthFormat(dayFirst[2]),
    );
  }
  const monthFirst = /^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(text);
  if (monthFirst) {
    const format = (monthFirst[1]?.length ?? 0) > 3 ? "mmmm d, yyyy" : "mmm d, yyyy";
    return dateValue(Number(monthFirst[3]), monthOf(monthFirst[1]), Number(monthFirst[2]), format);
  }
  return undefined;
}

function dayMonthFormat(month: string | undefined): string {
  return (month?.length ?? 0) > 3 ? "d mmmm yyyy" : "d mmm yyyy";
}

function monthOf(name: string | undefined): number {
  const lower = (name ?? "").toLowerCase();
  if (lower.length < 3) return 0;
  const index = months.findIndex(
    (month) => month.startsWith(lower) || (lower === "sept" && month === "september"),
  );
  return index + 1;
}

function dateValue(year: number, month: number, day: number, numFmt: string): CellValue | undefined {
  if (month < 1 || month > 12 || day < 1 || year < 1900 || year > 9999) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  // Rejects 2024-02-30 and the like, which Date would roll over into March.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return { kind: "date", value: date, numFmt };
}
