import { isIPv6 } from "node:net";
import { JobFailure } from "@octavo/engines";
import { findPhoneNumbersInText } from "libphonenumber-js";
import { RE2JS } from "re2js";

export type PresetName = "email" | "phone" | "iban" | "card" | "ssn" | "ipv4" | "ipv6";
type PatternPreset = Exclude<PresetName, "phone">;

export interface RuleOptions {
  /** Exact strings. */
  text?: string[];
  caseSensitive?: boolean;
  /** A string matches only where no letter or digit touches it. */
  wholeWords?: boolean;
  /** Regular expressions in RE2's syntax: matched in linear time, so no pattern can hang a worker. */
  patterns?: string[];
  presets?: PresetName[];
}

/** One thing to find, named for the report as its option ("text[0]", "patterns[1]", "email"). */
export interface Rule {
  name: string;
  /** A regular expression, or a finder of its own (phone numbers, by libphonenumber's metadata). */
  regex: RE2JS | ((text: string) => { start: number; end: number }[]);
  wholeWords: boolean;
  /** A second check a regular expression cannot make (check digits, ranges). */
  accept?: (match: string) => boolean;
}

export interface Match {
  rule: string;
  start: number;
  end: number;
}

const digitsOf = (text: string): string => text.replace(/\D/g, "");

/** Card brands by their number's first digits (IIN ranges) and the lengths they issue. */
const cardBrands: { prefix: RegExp; lengths: number[] }[] = [
  { prefix: /^4/, lengths: [13, 16, 19] }, // Visa
  { prefix: /^(5[1-5]|2(2[2-9][1-9]|[3-6]\d\d|7[01]\d|720))/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(6011|64[4-9]|65)/, lengths: [16, 17, 18, 19] }, // Discover
  { prefix: /^35(2[89]|[3-8]\d)/, lengths: [16, 17, 18, 19] }, // JCB
  { prefix: /^(30[0-5]|36|38)/, lengths: [14, 15, 16, 17, 18, 19] }, // Diners Club
  { prefix: /^62/, lengths: [16, 17, 18, 19] }, // UnionPay
];

/** A payment card number: a brand's prefix and length, and Luhn's check digit. */
function cardNumber(text: string): boolean {
  const digits = digitsOf(text);
  if (!cardBrands.some((brand) => brand.prefix.test(digits) && brand.lengths.includes(digits.length)))
    return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** ISO 13616: the country and check digits moved to the end, letters as numbers, modulo 97 is 1. */
function ibanChecks(text: string): boolean {
  const iban = text.replace(/\s/g, "").toUpperCase();
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = `${iban.slice(4)}${iban.slice(0, 4)}`;
  let remainder = 0;
  for (const char of moved) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** US SSNs never start with 000, 666 or 9, and have no 00 group or 0000 serial. */
function ssnRules(text: string): boolean {
  const [area = "", group = "", serial = ""] = text.split("-");
  return area !== "000" && area !== "666" && !area.startsWith("9") && group !== "00" && serial !== "0000";
}

const presets: Readonly<Record<PatternPreset, { pattern: string; accept?: (match: string) => boolean }>> = {
  email: { pattern: String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}` },
  iban: {
    pattern: String.raw`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`,
    accept: ibanChecks,
  },
  card: { pattern: String.raw`\b\d(?:[ -]?\d){12,18}\b`, accept: cardNumber },
  ssn: { pattern: String.raw`\b\d{3}-\d{2}-\d{4}\b`, accept: ssnRules },
  ipv4: {
    pattern: String.raw`\b\d{1,3}(?:\.\d{1,3}){3}\b`,
    accept: (match) => match.split(".").every((part) => Number(part) <= 255),
  },
  ipv6: { pattern: "[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}", accept: (match) => isIPv6(match) },
};

/** The rules of a job, compiled; a pattern RE2 cannot read fails the job, naming it. */
export function compileRules(options: RuleOptions): Rule[] {
  const wholeWords = options.wholeWords ?? false;
  const flags = options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  // A term's words may be parted by any white space: a line break sits between them on the page.
  // Compatibility forms as their letters, as the page's text is searched (see pageText).
  const literal = (text: string) => text.normalize("NFKC").trim().split(/\s+/).map(RE2JS.quote).join("\\s+");
  const rules: Rule[] = (options.text ?? []).map((text, index) => ({
    name: `text[${index}]`,
    regex: RE2JS.compile(literal(text), flags),
    wholeWords,
  }));
  (options.patterns ?? []).forEach((pattern, index) => {
    try {
      rules.push({ name: `patterns[${index}]`, regex: RE2JS.compile(pattern), wholeWords: false });
    } catch (error) {
      throw new JobFailure(
        "invalid_input",
        `options.patterns[${index}] is not a regular expression in RE2's syntax (${error instanceof Error ? error.message : error}); RE2 has no look-around or back-references.`,
      );
    }
  });
  for (const name of options.presets ?? []) {
    if (name === "phone") {
      rules.push({ name, regex: phoneNumbers, wholeWords: false });
      continue;
    }
    const preset = presets[name];
    rules.push({
      name,
      regex: RE2JS.compile(preset.pattern),
      wholeWords: false,
      ...(preset.accept ? { accept: preset.accept } : {}),
    });
  }
  return rules;
}

const wordChar = /[\p{L}\p{N}]/u;

/**
 * Phone numbers as libphonenumber finds them: in international form (+41 44 668 18 00), and in the national
 * form of the North American plan ((650) 253-0000), whose numbers are the most common in documents; its
 * metadata knows each country's lengths and prefixes, which no single pattern does.
 */
function phoneNumbers(text: string): { start: number; end: number }[] {
  const found = new Map<number, number>();
  for (const options of [{}, { defaultCountry: "US" as const }]) {
    for (const number of findPhoneNumbersInText(text, options)) found.set(number.startsAt, number.endsAt);
  }
  return [...found].map(([start, end]) => ({ start, end }));
}

function* spans(text: string, rule: Rule): Generator<{ start: number; end: number }> {
  if (typeof rule.regex === "function") {
    yield* rule.regex(text);
    return;
  }
  const matcher = rule.regex.matcher(text);
  while (matcher.find()) yield { start: matcher.start(), end: matcher.end() };
}

/** Every match of `rule` in `text`, empty matches left out. */
export function findMatches(text: string, rule: Rule): Match[] {
  const matches: Match[] = [];
  for (const { start, end } of spans(text, rule)) {
    if (end <= start) continue;
    const found = text.slice(start, end);
    if (rule.wholeWords && (wordChar.test(text[start - 1] ?? "") || wordChar.test(text[end] ?? ""))) continue;
    if (rule.accept !== undefined && !rule.accept(found)) continue;
    matches.push({ rule: rule.name, start, end });
  }
  return matches;
}
