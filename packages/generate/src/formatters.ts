import { ExpressionError, type Formatter, type Literal } from "./expressions.js";

/** What every formatter formats by: the job's options.locale and options.timeZone. */
export interface FormatSettings {
  locale: string;
  timeZone: string;
}

type FormatFunction = (value: unknown, args: readonly Literal[], settings: FormatSettings) => unknown;

const dateStyles = ["short", "medium", "long", "full"] as const;

function toNumber(value: unknown, formatter: string): number {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number)) {
    throw new ExpressionError(`${formatter} formats numbers, and ${JSON.stringify(value)} is not one`);
  }
  return number;
}

function toDate(value: unknown): Date {
  const date = typeof value === "string" || typeof value === "number" ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new ExpressionError(
      `date formats ISO 8601 dates ("2026-11-30") or epoch milliseconds, and ${JSON.stringify(value)} is neither`,
    );
  }
  return date;
}

/** A date-only ISO string is that calendar day wherever the reader is, not midnight UTC shifted by the zone. */
function zoneFor(value: unknown, settings: FormatSettings): string {
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? "UTC" : settings.timeZone;
}

function decimalsArg(args: readonly Literal[], formatter: string): number | undefined {
  const [decimals] = args;
  if (decimals === undefined) return undefined;
  if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 20) {
    throw new ExpressionError(`${formatter}'s argument is a number of decimals from 0 to 20`);
  }
  return decimals;
}

const formatters: Readonly<Record<string, FormatFunction>> = {
  /** {when | date} (medium), {when | date:"long"}, or with a time: {when | date:"short":"short"}. */
  date(value, args, settings) {
    const [dateStyle = "medium", timeStyle] = args;
    for (const style of [dateStyle, timeStyle]) {
      if (style !== undefined && !dateStyles.includes(style as (typeof dateStyles)[number])) {
        throw new ExpressionError(
          `date takes the styles ${dateStyles.join(", ")}, not ${JSON.stringify(style)}`,
        );
      }
    }
    return new Intl.DateTimeFormat(settings.locale, {
      dateStyle: dateStyle as (typeof dateStyles)[number],
      ...(timeStyle === undefined ? {} : { timeStyle: timeStyle as (typeof dateStyles)[number] }),
      timeZone: zoneFor(value, settings),
    }).format(toDate(value));
  },
  /** {qty | number} or {price | number:2}: grouped by the locale, with that many decimals. */
  number(value, args, settings) {
    const decimals = decimalsArg(args, "number");
    return new Intl.NumberFormat(settings.locale, {
      ...(decimals === undefined ? {} : { minimumFractionDigits: decimals, maximumFractionDigits: decimals }),
    }).format(toNumber(value, "number"));
  },
  /** {total | currency:"EUR"}: the ISO 4217 code, placed and rounded as the locale writes it. */
  currency(value, args, settings) {
    const [code] = args;
    if (typeof code !== "string" || !/^[A-Za-z]{3}$/.test(code)) {
      throw new ExpressionError('currency needs an ISO 4217 code: {total | currency:"EUR"}');
    }
    return new Intl.NumberFormat(settings.locale, { style: "currency", currency: code.toUpperCase() }).format(
      toNumber(value, "currency"),
    );
  },
  /** {rate | percent} for 0.2 → 20%, or {rate | percent:1}. */
  percent(value, args, settings) {
    const decimals = decimalsArg(args, "percent");
    return new Intl.NumberFormat(settings.locale, {
      style: "percent",
      ...(decimals === undefined ? {} : { minimumFractionDigits: decimals, maximumFractionDigits: decimals }),
    }).format(toNumber(value, "percent"));
  },
  upper: (value, _args, settings) => String(value ?? "").toLocaleUpperCase(settings.locale),
  lower: (value, _args, settings) => String(value ?? "").toLocaleLowerCase(settings.locale),
  /** {note | default:"none"}: the text when the value is null or empty. */
  default: (value, args) => (value === null || value === undefined || value === "" ? (args[0] ?? "") : value),
  /** {items | count}: how many items a list has. */
  count(value) {
    if (!Array.isArray(value)) throw new ExpressionError("count counts the items of a list");
    return value.length;
  },
};

export const formatterNames = Object.keys(formatters);

/** Throws ExpressionError for a formatter the language has not, naming the ones it has. */
export function checkFormatter(formatter: Formatter): void {
  if (!Object.hasOwn(formatters, formatter.name)) {
    throw new ExpressionError(
      `there is no formatter "${formatter.name}"; there are ${formatterNames.join(", ")}`,
    );
  }
}

export function applyFormatters(
  value: unknown,
  chain: readonly Formatter[],
  settings: FormatSettings,
): unknown {
  let result = value;
  for (const formatter of chain) {
    const format = formatters[formatter.name];
    if (format === undefined) throw new ExpressionError(`there is no formatter "${formatter.name}"`);
    result = format(result, formatter.args, settings);
  }
  return result;
}
