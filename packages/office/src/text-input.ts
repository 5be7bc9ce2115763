import { isUtf8 } from "node:buffer";
import { readFile, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { analyse } from "chardet";
import Papa from "papaparse";

/** A CSV or TXT input rewritten as UTF-8, with the LibreOffice import filter that reads it. */
export interface PreparedText {
  path: string;
  filter: string;
  filterOptions: string;
  csv: boolean;
  /** The encoding the input was read as (a WHATWG label). */
  encoding: string;
  /** CSV only: the field separator found. */
  separator?: string;
}

export type TextResult = { ok: true; prepared: PreparedText } | { ok: false; looksLike: string };

// Separators a CSV may use; the first is the default when the sample does not decide.
const separators = [",", ";", "\t", "|"];
// Every column is imported as text (format 2): a PDF must show the file's characters, not Calc's reading
// of them (leading zeros, long IDs turned into 1.23E+19, "1-2" turned into a date).
const textColumnFormat = 2;
const maxFormattedColumns = 1024;
const sampleChars = 256 * 1024;

/**
 * Reads a CSV or TXT input in whatever encoding it has, and writes it as UTF-8 (no BOM) to `target`, so
 * LibreOffice is always told the same encoding. Converting here rather than passing the detected
 * charset to LibreOffice covers every encoding Node's TextDecoder knows, including UTF-16 without a BOM.
 */
export async function prepareTextInput(source: string, target: string): Promise<TextResult> {
  const bytes = await readFile(source);
  const encoding = detectEncoding(bytes);
  const text = new TextDecoder(encoding.label).decode(bytes.subarray(encoding.bomLength));
  if (!looksLikeText(text)) {
    return { ok: false, looksLike: "binary data, not text in any encoding the service recognises" };
  }
  const path = target;
  await writeFile(path, text, "utf8");
  if (extname(target).toLowerCase() !== ".csv") {
    // Writer's "Text (encoded)" filter; its options start with the character set.
    return {
      ok: true,
      prepared: {
        path,
        filter: "Text (encoded)",
        filterOptions: "UTF8",
        csv: false,
        encoding: encoding.label,
      },
    };
  }
  const { separator, columns } = sniffCsv(text);
  const formats = Array.from(
    { length: Math.min(Math.max(columns, 1), maxFormattedColumns) },
    (_, index) => `${index + 1}/${textColumnFormat}`,
  ).join("/");
  // Tokens: field separator, text delimiter ("), character set (76 = UTF-8), first line, column formats.
  const filterOptions = `${separator.charCodeAt(0)},34,76,1,${formats}`;
  return {
    ok: true,
    prepared: {
      path,
      filter: "Text - txt - csv (StarCalc)",
      filterOptions,
      csv: true,
      encoding: encoding.label,
      separator,
    },
  };
}

export interface DetectedEncoding {
  label: string;
  bomLength: number;
}

/** BOM first, then UTF-16 without BOM, then strict UTF-8, then chardet's best single-byte/CJK guess. */
export function detectEncoding(bytes: Uint8Array): DetectedEncoding {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { label: "utf-8", bomLength: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { label: "utf-16le", bomLength: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { label: "utf-16be", bomLength: 2 };
  const utf16 = utf16WithoutBom(bytes.subarray(0, 4096));
  if (utf16 !== undefined) return { label: utf16, bomLength: 0 };
  // Valid UTF-8 (ASCII included) is UTF-8: chardet calls short ASCII files ISO-8859-1.
  if (isUtf8(bytes)) return { label: "utf-8", bomLength: 0 };
  const guess = analyse(bytes.subarray(0, 64 * 1024)).find(
    (match) => !match.name.toUpperCase().startsWith("UTF") && decodable(match.name),
  );
  // Not UTF-8 and no confident guess: Windows-1252 is the commonest legacy encoding, and a superset of
  // ISO-8859-1 for printable characters.
  return { label: guess?.name.toLowerCase() ?? "windows-1252", bomLength: 0 };
}

function utf16WithoutBom(sample: Uint8Array): string | undefined {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < pairs * 2; index += 2) {
    if (sample[index] === 0) evenZeros += 1;
    if (sample[index + 1] === 0) oddZeros += 1;
  }
  // Latin text in UTF-16 has a zero high byte in (nearly) every pair, on the same side.
  if (oddZeros > pairs * 0.4 && evenZeros < pairs * 0.05) return "utf-16le";
  if (evenZeros > pairs * 0.4 && oddZeros < pairs * 0.05) return "utf-16be";
  return undefined;
}

function decodable(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    // TextDecoder throws RangeError for labels it does not know (chardet also names UTF-32, for one).
    return false;
  }
}

function looksLikeText(text: string): boolean {
  const sample = text.slice(0, 64 * 1024);
  let suspicious = 0;
  for (let index = 0; index < sample.length; index += 1) {
    const code = sample.charCodeAt(index);
    if (code === 0) return false;
    // Controls other than tab, line breaks, form feed and the DOS end-of-file mark (0x1A), and
    // replacement characters from undecodable bytes, are what binary data turns into.
    const control = code < 0x20 && !(code >= 0x09 && code <= 0x0d) && code !== 0x1a;
    if (control || code === 0xfffd) suspicious += 1;
  }
  return suspicious <= sample.length / 100;
}

function sniffCsv(text: string): { separator: string; columns: number } {
  const parsed = Papa.parse<string[]>(text.slice(0, sampleChars), {
    preview: 200,
    delimitersToGuess: separators,
    skipEmptyLines: true,
  });
  const separator = separators.includes(parsed.meta.delimiter) ? parsed.meta.delimiter : ",";
  const columns = parsed.data.reduce((widest, row) => Math.max(widest, row.length), 0);
  return { separator, columns };
}
