import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { promisify } from "node:util";
import * as CFB from "cfb";
import { unzipSync } from "fflate";
import * as XLSX from "xlsx";

const execFileAsync = promisify(execFile);

/**
 * The text of an Office file, read with that format's own structure rather than with LibreOffice, so the
 * PDF can be checked against it. What each reader takes is what a reader of the printed document sees:
 * body, headers, footers, footnotes, table cells, slide text, cell strings; not speaker notes, comments,
 * deleted revisions or field codes.
 */
export async function sourceText(
  path: string,
  options: { encoding?: string; readAs?: string } = {},
): Promise<string> {
  const extension = options.readAs ?? extname(path).toLowerCase();
  const bytes = await readFile(path);
  switch (extension) {
    case ".docx":
      return ooxmlText(bytes, /^word\/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$/);
    case ".xlsx":
      return ooxmlText(bytes, /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/);
    case ".pptx":
    case ".ppsx":
      // Slides only: chart text is drawn from the chart's own data (axis numbers, legends when shown).
      return ooxmlText(bytes, /^ppt\/slides\/slide\d+\.xml$/);
    case ".odt":
    case ".ods":
    case ".odp":
      return odfText(bytes);
    case ".rtf":
      return rtfText(bytes.toString("latin1"));
    case ".doc":
      return docText(path);
    case ".xls":
      return xlsText(bytes);
    case ".ppt":
    case ".pps":
      return pptText(bytes);
    case ".txt":
    case ".csv":
      return new TextDecoder(options.encoding ?? "utf-8").decode(bytes);
    default:
      throw new Error(`no reader for ${extension}`);
  }
}

function unzip(bytes: Buffer): Record<string, Uint8Array> {
  return unzipSync(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

function utf8(data: Uint8Array | undefined): string {
  return data === undefined ? "" : new TextDecoder().decode(data);
}

/** XML text content with a space wherever a paragraph, cell, tab or line break separates words. */
function xmlText(xml: string): string {
  return decodeEntities(
    xml
      .replace(/<w:(instrText|delText)\b[^>]*>[\s\S]*?<\/w:\1>/g, " ")
      .replace(/<(office:annotation|presentation:notes)\b[\s\S]*?<\/\1>/g, " ")
      .replace(
        /<\/(w:p|a:p|text:p|text:h|c|si|w:tc|c:v)>|<(w:tab|w:br|text:tab|text:line-break|text:s)\b[^>]*\/>/g,
        " ",
      )
      .replace(/<[^>]+>/g, ""),
  );
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&");
}

function ooxmlText(bytes: Buffer, parts: RegExp): string {
  const files = unzip(bytes);
  return Object.keys(files)
    .filter((name) => parts.test(name))
    .map((name) => {
      const xml = utf8(files[name]);
      // Worksheets: only inline strings are text; <v> there holds numbers or shared-string indexes.
      return name.includes("worksheets/")
        ? xmlText((xml.match(/<is>[\s\S]*?<\/is>/g) ?? []).join(" "))
        : xmlText(xml);
    })
    .join("\n");
}

function odfText(bytes: Buffer): string {
  const xml = utf8(unzip(bytes)["content.xml"]);
  return xmlText(xml.replace(/<office:scripts>[\s\S]*?<\/office:scripts>/, ""));
}

/** Word 97–2003, Word 95 and Word 2.0: catdoc (Debian's catdoc package) reads all three. */
async function docText(path: string): Promise<string> {
  const { stdout } = await execFileAsync("catdoc", ["-d", "utf-8", "-w", path], {
    maxBuffer: 64 * 1024 ** 2,
  });
  // Field codes (HYPERLINK "…", SEQ Figure \* ARABIC) are not printed.
  return stdout.replace(
    /\b(HYPERLINK|PAGEREF|TOC|REF|SEQ)\s+("[^"]*"|\S+)(\s+\\[*\w]+(\s+[A-Z]+\b)?)*/g,
    " ",
  );
}

/** BIFF2–8 workbooks: SheetJS, each cell as Excel formats it. */
function xlsText(bytes: Buffer): string {
  const book = XLSX.read(bytes, { type: "buffer" });
  return book.SheetNames.map((name) => {
    const sheet = book.Sheets[name];
    return sheet === undefined ? "" : XLSX.utils.sheet_to_csv(sheet, { FS: "\t" });
  }).join("\n");
}

/**
 * PowerPoint 97–2003: the text atoms of the "PowerPoint Document" stream, outside masters and notes.
 * PowerPoint 95 keeps a plain copy of its slide text in a "Text_Content" stream instead.
 */
function pptText(bytes: Buffer): string {
  const container = CFB.read(bytes, { type: "buffer" });
  const text95 = CFB.find(container, "Text_Content");
  if (text95?.content !== undefined) return Buffer.from(text95.content).toString("latin1");
  const stream = CFB.find(container, "PowerPoint Document");
  if (stream?.content === undefined) return "";
  const data = Buffer.from(stream.content);
  const out: string[] = [];
  const walk = (start: number, end: number): void => {
    let offset = start;
    while (offset + 8 <= end) {
      const versionAndInstance = data.readUInt16LE(offset);
      const type = data.readUInt16LE(offset + 2);
      const length = data.readUInt32LE(offset + 4);
      const body = offset + 8;
      const next = Math.min(body + length, end);
      if ((versionAndInstance & 0xf) === 0xf) {
        // 0x03F8 main master, 0x03F0 notes, 0x0FF0 slide-list-with-text of masters (1) or notes (2).
        const instance = versionAndInstance >> 4;
        const skipped = type === 0x03f8 || type === 0x03f0 || (type === 0x0ff0 && instance !== 0);
        if (!skipped) walk(body, next);
      } else if (type === 0x0fa0) {
        out.push(data.subarray(body, next).toString("utf16le"));
      } else if (type === 0x0fa8) {
        out.push(data.subarray(body, next).toString("latin1"));
      }
      offset = next;
    }
  };
  walk(0, data.length);
  return out.join("\n");
}

// RTF \fcharset numbers → WHATWG encodings, for \'hh bytes in a font of that charset.
const charsets: Readonly<Record<number, string>> = {
  0: "windows-1252",
  128: "shift_jis",
  129: "euc-kr",
  134: "gbk",
  136: "big5",
  161: "windows-1253",
  162: "windows-1254",
  163: "windows-1258",
  177: "windows-1255",
  178: "windows-1256",
  186: "windows-1257",
  204: "windows-1251",
  222: "windows-874",
  238: "windows-1250",
};

const skippedDestinations = new Set([
  "fonttbl",
  "colortbl",
  "stylesheet",
  "info",
  "pict",
  "object",
  "themedata",
  "colorschememapping",
  "latentstyles",
  "datastore",
  "xmlnstbl",
  "listtable",
  "listoverridetable",
  "rsidtbl",
  "generator",
  "pgdsctbl",
  "fldinst",
]);

/**
 * A small RTF reader: groups, skipped destinations, \uN with \ucN fallbacks, and \'hh bytes decoded in the
 * code page of the current font (\fN → \fcharsetM from the font table), so Shift-JIS text comes out right.
 */
export function rtfText(rtf: string): string {
  const fontCharsets = new Map<number, number>();
  for (const match of rtf.matchAll(/\\f(\d+)[^;{}]*?\\fcharset(\d+)/g)) {
    fontCharsets.set(Number(match[1]), Number(match[2]));
  }
  const ansi = /\\ansicpg(\d+)/.exec(rtf)?.[1];
  const defaultEncoding = ansi === undefined ? "windows-1252" : `windows-${ansi}`;
  interface State {
    skip: boolean;
    font: number;
    unicodeSkip: number;
  }
  const stack: State[] = [];
  let state: State = { skip: false, font: -1, unicodeSkip: 1 };
  let out = "";
  let bytes: number[] = [];
  let pendingSkip = 0;
  const encodingOf = (font: number): string => {
    const charset = fontCharsets.get(font);
    return charset === undefined ? defaultEncoding : (charsets[charset] ?? defaultEncoding);
  };
  const flush = (): void => {
    if (bytes.length === 0) return;
    out += new TextDecoder(encodingOf(state.font)).decode(new Uint8Array(bytes));
    bytes = [];
  };
  const emit = (text: string): void => {
    flush();
    if (!state.skip) out += text;
  };
  let index = 0;
  while (index < rtf.length) {
    const char = rtf[index] ?? "";
    if (char === "{") {
      flush();
      stack.push(state);
      state = { ...state };
      index += 1;
    } else if (char === "}") {
      flush();
      state = stack.pop() ?? state;
      index += 1;
    } else if (char === "\\") {
      const hex = /^\\'([0-9a-fA-F]{2})/.exec(rtf.slice(index, index + 4));
      if (hex?.[1] !== undefined) {
        index += 4;
        if (pendingSkip > 0) {
          pendingSkip -= 1;
        } else if (!state.skip) {
          bytes.push(Number.parseInt(hex[1], 16));
        }
        continue;
      }
      const word = /^\\([a-zA-Z]+)(-?\d+)? ?/.exec(rtf.slice(index, index + 40));
      if (word?.[1] === undefined) {
        // A control symbol: \\ \{ \} are literal, \~ is a non-breaking space, \* marks an optional
        // destination that we skip.
        const symbol = rtf[index + 1] ?? "";
        if (symbol === "*") state.skip = true;
        else if (symbol === "~") emit(" ");
        else if ("\\{}".includes(symbol)) emit(symbol);
        index += 2;
        continue;
      }
      index += word[0].length;
      const name = word[1];
      const parameter = word[2] === undefined ? undefined : Number(word[2]);
      if (skippedDestinations.has(name)) {
        flush();
        state.skip = true;
      } else if (name === "f" && parameter !== undefined) {
        flush();
        state.font = parameter;
      } else if (name === "uc" && parameter !== undefined) {
        state.unicodeSkip = parameter;
      } else if (name === "u" && parameter !== undefined) {
        emit(String.fromCharCode(parameter < 0 ? parameter + 65536 : parameter));
        pendingSkip = state.unicodeSkip;
      } else if (["par", "line", "tab", "cell", "row", "sect", "page"].includes(name)) {
        emit(" ");
      }
    } else {
      if (char !== "\r" && char !== "\n") {
        if (pendingSkip > 0) pendingSkip -= 1;
        else emit(char);
      }
      index += 1;
    }
  }
  flush();
  return out;
}
