// Markdown structure and its scores, for the PDF to Markdown benches (structure.mjs against pandoc, scans.mjs
// for plain text). No npm dependencies; works on the Markdown that pandoc (`-t gfm`) and our engine write.
//
//   import { readStructure, words, wordEditDistance, multisetF1 } from "./structure-score.mjs";
//   const ours = readStructure(markdown);  // { blocks, headings, listItems, tableCells, text }
//   const d = wordEditDistance(words(truth.text), words(ours.text)).normalised;
//   const f1 = multisetF1(truth.headings.map((h) => h.key), ours.headings.map((h) => h.key)).f1;
//
// Self-test: node --test bench/markdown/structure-score.test.mjs
//
// What is read (CommonMark/GFM, the subset the two writers produce):
// - ATX headings (`#`..`######`, closing #s dropped) and setext headings (a paragraph underlined with === or
//   ---); `<h1>`..`<h6>` lines too.
// - List items: `-`, `*`, `+`, `1.`, `1)` markers at any indent, several on one line (pandoc's `-   -   x` is
//   an empty item holding a nested one; empty items are dropped). An item's text is its first paragraph: the
//   marker line plus the lines that directly follow it (lazy continuation); paragraphs after a blank line are
//   text of the document but not of the item. Its level comes from the indents of the open items.
// - Tables: GFM pipe tables (a row, a delimiter row, rows up to a blank or pipe-less line; `\|` is a literal
//   pipe) and HTML tables (<table> … </table>, any number of lines, <td>/<th> with rowspan/colspan; a nested
//   table's cells are cells of their own, not text of the cell that holds them). Each table keeps its rows
//   of cells ({ text, rowSpan, columnSpan }); `tableCells` is every table's cells' text, empty cells left out.
// - Fenced code blocks (``` or ~~~) are text, not structure. HTML comments (<!-- page 3 -->) are nothing.
// - Inline: images (![alt](src), <img>) are dropped entirely, alt text included (the engine's placeholder
//   says "image", pandoc's <img> says nothing: neither is document text); links keep their text; footnote
//   references ([^1]) are dropped and footnote definitions ([^1]: text) are paragraphs; emphasis (*, _, ~~),
//   code spans and HTML tags (<u>, <sup>, <br>, …; HTML's element names only, so an unescaped "<lazy>" stays
//   text) are stripped, backslash escapes and HTML entities decoded.
//
// Words (`words`): the rules of @octavo/testing's wordRecall (packages/testing/src/word-recall.ts), kept in
// order: NFKC, lower case; bidi/zero-width controls and control characters are spaces, other format
// characters are deleted; private-use characters (symbol-font glyphs such as Wingdings, which extractors
// map differently) are spaces, an addition to wordRecall's rules; each Han/Hiragana/Katakana character is a word; split on white space and on
// hyphens/dashes; punctuation and symbols trimmed from both ends of each word; empty words dropped. A
// heading's, list item's or cell's `key` is its words joined by one space, so "**Phase 1**", "Phase 1" and
// "phase 1:" are the same key. A heading's key also leaves out a leading section number ("1.2 Scope" and
// "Scope" match): Word and LibreOffice print heading numbers, pandoc does not write them.

const HYPHENS = /[-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/;
const CJK = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u30FC])/gu;
const BOUNDARY_CONTROLS = /[\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;
const EDGE = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/** The normalised words of a text, in order (see the header). */
export function words(text) {
  const out = [];
  const normalised = String(text)
    .normalize("NFKC")
    .toLowerCase()
    .replace(BOUNDARY_CONTROLS, " ")
    .replace(/\p{Cc}/gu, " ")
    .replace(/\p{Cf}/gu, "")
    .replace(/\p{Co}/gu, " ")
    .replace(CJK, " $1 ");
  for (const raw of normalised.split(/\s+/)) {
    if (!raw) continue;
    for (const part of raw.split(HYPHENS)) {
      const word = part.replace(EDGE, "");
      if (word) out.push(word);
    }
  }
  return out;
}

/** A text's matching key: its words joined by one space ("" when it has none). */
export const keyOf = (text) => words(text).join(" ");

// ---------------------------------------------------------------------------------------------------------
// Inline Markdown and HTML to plain text

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** HTML character references decoded (named: the five XML ones and nbsp; numeric: all). */
export function decodeEntities(text) {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name) => {
    if (name[0] === "#") {
      const code = /x/i.test(name[1])
        ? Number.parseInt(name.slice(2), 16)
        : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

// Tags stripped as markup: HTML's own element names only, so text such as "<lazy>" or "<name@host>" that a
// writer forgot to escape still counts as words (CommonMark would swallow it as raw HTML).
const INLINE_TAG = /<\/?([a-zA-Z][a-zA-Z0-9-]*)(?:\s[^<>]*)?\/?>/g;
const HTML_ELEMENTS = new Set(
  (
    "a abbr article aside b bdi bdo big blockquote br caption center cite code col colgroup dd del details dfn " +
    "div dl dt em figcaption figure font footer h1 h2 h3 h4 h5 h6 header hr i img ins kbd label li main mark " +
    "math nav ol p picture pre q s samp section small source span strike strong sub summary sup svg table " +
    "tbody td tfoot th thead time tr tt u ul var wbr"
  ).split(" "),
);

// Backslash escapes are swapped for private-use characters while the markup is stripped, then restored.
const ESCAPABLE = /\\([!-/:-@[-`{-~])/g;
const PRIVATE_BASE = 0xf0000;

/** One line (or cell) of inline Markdown as plain text (see the header for what is stripped). */
export function inlineText(markdown) {
  let text = String(markdown).replace(ESCAPABLE, (_, ch) =>
    String.fromCodePoint(PRIVATE_BASE + ch.codePointAt(0)),
  );
  text = text
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/!\[(?:[^\]\\]|\\.)*\]\((?:<[^>]*>|(?:[^()\s]|\([^()]*\))*)(?:\s+"[^"]*")?\)/g, " ") // images
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, " ") // reference images
    .replace(/<img\b[^>]*>/gi, " ")
    .replace(/\[\^[^\]\s]+\]/g, "") // footnote references
    .replace(/\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, "$1") // inline links
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1") // reference links
    .replace(/<((?:https?|ftp|mailto):[^>\s]+)>/gi, "$1") // autolinks
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/<\/?(?:p|div|li|ul|ol|tr|td|th|h[1-6]|blockquote|pre)\b[^>]*>/gi, " ")
    .replace(INLINE_TAG, (tag, name) => (HTML_ELEMENTS.has(name.toLowerCase()) ? "" : tag)) // <u>, <sup>…
    .replace(/`+/g, "")
    .replace(/~~/g, "")
    .replace(/\*+/g, "")
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, "$1");
  text = decodeEntities(text);
  return text
    .replace(/[\u{F0000}-\u{F00FF}]/gu, (ch) => String.fromCodePoint(ch.codePointAt(0) - PRIVATE_BASE))
    .replace(/\s+/g, " ")
    .trim();
}

// ---------------------------------------------------------------------------------------------------------
// Tables

const DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** The cells of one pipe-table row, split on unescaped pipes, outer pipes dropped, cells trimmed. */
export function splitPipeRow(line) {
  const cells = [];
  let current = "";
  let code = 0; // inside a code span of this many backticks
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "\\" && line[i + 1] === "|") {
      current += "\\|";
      i++;
    } else if (ch === "`") {
      let n = 1;
      while (line[i + n] === "`") n++;
      code = code === 0 ? n : code === n ? 0 : code;
      current += "`".repeat(n);
      i += n - 1;
    } else if (ch === "|" && code === 0) {
      cells.push(current);
      current = "";
    } else current += ch;
  }
  cells.push(current);
  const trimmed = line.trim();
  if (trimmed.startsWith("|")) cells.shift();
  if (trimmed.endsWith("|") && !trimmed.endsWith("\\|") && cells.length > 0) cells.pop();
  return cells.map((cell) => cell.trim());
}

/** A pipe table starts here: a row with a pipe, then a delimiter row with as many cells. */
const isPipeTableStart = (line, next) =>
  next !== undefined &&
  line.includes("|") &&
  DELIMITER_ROW.test(next) &&
  splitPipeRow(line).length === splitPipeRow(next).length;

/**
 * The tables of an HTML fragment: each table as rows of { text, rowSpan, columnSpan }. A cell's text is
 * its inline text with any nested table left out; nested tables follow their parent in the result.
 */
export function parseHtmlTables(html) {
  const tables = [];
  const stack = []; // open tables: { rows, row, cell }
  const tag = /<(\/?)(table|tr|td|th)\b([^>]*)>/gi;
  let last = 0;
  const addText = (text) => {
    const top = stack.at(-1);
    if (top?.cell) top.cell.raw += text;
  };
  for (let match = tag.exec(html); match; match = tag.exec(html)) {
    addText(html.slice(last, match.index));
    last = tag.lastIndex;
    const [, closing, nameRaw, attributes] = match;
    const name = nameRaw.toLowerCase();
    const top = stack.at(-1);
    const closeCell = (table) => {
      if (!table?.cell) return;
      const { raw, rowSpan, columnSpan } = table.cell;
      if (!table.row) {
        table.row = [];
        table.rows.push(table.row);
      }
      table.row.push({ text: inlineText(raw), rowSpan, columnSpan });
      table.cell = undefined;
    };
    if (name === "table" && !closing) {
      const table = { rows: [], row: undefined, cell: undefined };
      tables.push(table);
      stack.push(table);
    } else if (name === "table") {
      closeCell(top);
      stack.pop();
    } else if (!top) {
      // a stray row or cell tag outside any table
    } else if (name === "tr" && !closing) {
      closeCell(top);
      top.row = [];
      top.rows.push(top.row);
    } else if (name === "tr") {
      closeCell(top);
      top.row = undefined;
    } else if (!closing) {
      closeCell(top);
      const span = (attribute) => {
        const value = new RegExp(`\\b${attribute}\\s*=\\s*["']?(\\d+)`, "i").exec(attributes);
        return value ? Math.max(1, Number(value[1])) : 1;
      };
      top.cell = { raw: "", rowSpan: span("rowspan"), columnSpan: span("colspan") };
    } else closeCell(top);
  }
  addText(html.slice(last));
  while (stack.length) {
    const table = stack.pop();
    if (table.cell) {
      const { raw, rowSpan, columnSpan } = table.cell;
      (table.row ?? table.rows[table.rows.push([]) - 1]).push({ text: inlineText(raw), rowSpan, columnSpan });
    }
  }
  return tables.map((table) => table.rows.filter((row) => row.length > 0));
}

// ---------------------------------------------------------------------------------------------------------
// Blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const HTML_HEADING = /^\s*<h([1-6])\b[^>]*>(.*?)<\/h\1>\s*$/i;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}((\*[ \t]*){3,}|(-[ \t]*){3,}|(_[ \t]*){3,})$/;
const LIST_MARKER = /^([ \t]*)([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
const FOOTNOTE_DEFINITION = /^ {0,3}\[\^[^\]]+\]:\s*(.*)$/;

/** Columns of leading white space, a tab counting to the next multiple of 4. */
function indentOf(text) {
  let column = 0;
  for (const ch of text) {
    if (ch === " ") column++;
    else if (ch === "\t") column += 4 - (column % 4);
    else break;
  }
  return column;
}

/**
 * A heading's text without a leading section number ("1 ", "1.2 ", "3.4.5. "): Word and LibreOffice print
 * the numbers of numbered heading styles, so the PDF and our Markdown have them, and pandoc does not write
 * them. Left out on both sides, so numbering does not decide whether two headings match.
 */
export const withoutSectionNumber = (text) => text.replace(/^\s*\d{1,3}(?:\.\d{1,3})*\.?\s+(?=\S)/, "");

/**
 * Reads Markdown into its structure:
 * - blocks: [{ type: heading|paragraph|list-item|table|code, text, level?, ordered?, rows? }] in order;
 * - headings: [{ level, text, key }] (key without a section number), listItems: [{ level, ordered, text, key }];
 * - tables: [[[{ text, rowSpan, columnSpan }]]]; tableCells: the non-empty cells' texts, all tables;
 * - text: the document as plain text, one block a line (what `words` reads for the edit distance).
 */
export function readStructure(markdown) {
  const lines = String(markdown)
    .replace(/\r\n?/g, "\n")
    .replace(/<!--[\s\S]*?-->/g, "")
    .split("\n")
    .map((line) => line.replace(/^( {0,3}>[ \t]?)+/, "")); // block quotes: their content
  const blocks = [];
  let paragraph = [];
  let item; // the list item taking lazy continuation lines
  const openItems = []; // content indents of the open list items, outermost first

  const flushParagraph = () => {
    if (paragraph.length) {
      const text = inlineText(paragraph.join(" "));
      if (text) blocks.push({ type: "paragraph", text });
    }
    paragraph = [];
  };
  const endItem = () => {
    if (item) {
      item.text = inlineText(item.raw.join(" "));
      delete item.raw;
      if (!item.text) blocks.splice(blocks.indexOf(item), 1);
    }
    item = undefined;
  };
  const addTable = (rows) => {
    const text = rows.map((row) => row.map((cell) => cell.text).join(" ")).join("\n");
    blocks.push({ type: "table", rows, text });
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) {
      flushParagraph();
      endItem();
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      flushParagraph();
      endItem();
      const body = [];
      const closing = new RegExp(`^ {0,3}${fence[1][0] === "`" ? "`" : "~"}{${fence[1].length},}\\s*$`);
      for (i++; i < lines.length && !closing.test(lines[i]); i++) body.push(lines[i]);
      const text = body.join("\n").trim();
      if (text) blocks.push({ type: "code", text });
      continue;
    }
    if (/<table\b/i.test(line)) {
      flushParagraph();
      endItem();
      let html = "";
      let depth = 0;
      for (; i < lines.length; i++) {
        html += `${lines[i]}\n`;
        depth += (lines[i].match(/<table\b/gi) ?? []).length - (lines[i].match(/<\/table>/gi) ?? []).length;
        if (depth <= 0) break;
      }
      const before = html.slice(0, html.search(/<table\b/i));
      if (inlineText(before)) blocks.push({ type: "paragraph", text: inlineText(before) });
      for (const rows of parseHtmlTables(html)) addTable(rows);
      const after = html.slice(html.toLowerCase().lastIndexOf("</table>") + 8);
      if (inlineText(after)) blocks.push({ type: "paragraph", text: inlineText(after) });
      continue;
    }
    if (isPipeTableStart(line, lines[i + 1])) {
      flushParagraph();
      endItem();
      const rows = [splitPipeRow(line)];
      for (i += 2; i < lines.length && lines[i].trim() && lines[i].includes("|"); i++)
        rows.push(splitPipeRow(lines[i]));
      i--;
      addTable(rows.map((row) => row.map((cell) => ({ text: inlineText(cell), rowSpan: 1, columnSpan: 1 }))));
      continue;
    }
    const atx = ATX.exec(line) ?? HTML_HEADING.exec(line);
    if (atx) {
      flushParagraph();
      endItem();
      const level = atx[1].length === 1 && /^\d$/.test(atx[1]) ? Number(atx[1]) : atx[1].length;
      const text = inlineText(atx[2] ?? "");
      if (text) blocks.push({ type: "heading", level, text });
      continue;
    }
    const setext = SETEXT.exec(line);
    if (setext && paragraph.length && !item) {
      const text = inlineText(paragraph.join(" "));
      paragraph = [];
      if (text) blocks.push({ type: "heading", level: setext[1][0] === "=" ? 1 : 2, text });
      continue;
    }
    if (THEMATIC.test(line)) {
      flushParagraph();
      endItem();
      continue;
    }
    const footnote = FOOTNOTE_DEFINITION.exec(line);
    if (footnote) {
      flushParagraph();
      endItem();
      paragraph.push(footnote[1]);
      continue;
    }
    const marker = LIST_MARKER.exec(line);
    if (marker) {
      flushParagraph();
      endItem();
      // One or more markers on the line: each opens an item nested in the one before, and an item whose
      // text is only the next marker is empty (pandoc's `-   -   x`), so it is dropped.
      let rest = line;
      let column = 0;
      for (let m = marker; m; m = LIST_MARKER.exec(rest)) {
        const [, lead, symbol, gap = " ", body = ""] = m;
        const markerColumn = column + indentOf(lead);
        const content = markerColumn + symbol.length + Math.min(indentOf(gap), 4);
        while (openItems.length && openItems.at(-1) > markerColumn) openItems.pop();
        openItems.push(content);
        item = { type: "list-item", level: openItems.length, ordered: /\d/.test(symbol), raw: [body] };
        blocks.push(item);
        column = content;
        rest = body;
        if (!/^([-*+]|\d{1,9}[.)])[ \t]/.test(rest)) break;
        item.raw = [];
        endItem();
      }
      continue;
    }
    if (item) {
      item.raw.push(line.trim()); // lazy continuation of the item's first paragraph
      continue;
    }
    // A paragraph line; outside any list's indent, the lists are over.
    if (openItems.length && indentOf(line) < openItems[0] && !paragraph.length) openItems.length = 0;
    paragraph.push(line.trim());
  }
  flushParagraph();
  endItem();

  const withKey = (entry) => ({ ...entry, key: keyOf(entry.text) });
  const headingWithKey = (entry) => ({ ...entry, key: keyOf(withoutSectionNumber(entry.text)) });
  const tables = blocks.filter((block) => block.type === "table").map((block) => block.rows);
  return {
    blocks,
    headings: blocks
      .filter((block) => block.type === "heading")
      .map(({ level, text }) => headingWithKey({ level, text })),
    listItems: blocks
      .filter((block) => block.type === "list-item")
      .map(({ level, ordered, text }) => withKey({ level, ordered, text })),
    tables,
    tableCells: tables.flatMap((rows) => rows.flat().map((cell) => cell.text)).filter((text) => keyOf(text)),
    text: blocks.map((block) => block.text).join("\n"),
  };
}

/** Markdown as plain text: readStructure's text (images, markup and tables' pipes gone). */
export const markdownToText = (markdown) => readStructure(markdown).text;

// ---------------------------------------------------------------------------------------------------------
// Scores

/**
 * Levenshtein distance between two word sequences (insert, delete, substitute one word: cost 1 each), and
 * normalised by the longer sequence's length: 0 identical, 1 nothing in common (0 when both are empty).
 */
export function wordEditDistance(a, b) {
  if (a.length < b.length) [a, b] = [b, a]; // b is the shorter: one row of it
  if (b.length === 0) return { distance: a.length, normalised: a.length ? 1 : 0 };
  const ids = new Map();
  const id = (word) => {
    let value = ids.get(word);
    if (value === undefined) {
      value = ids.size;
      ids.set(word, value);
    }
    return value;
  };
  const left = Uint32Array.from(a, id);
  const right = Uint32Array.from(b, id);
  let previous = new Uint32Array(right.length + 1).map((_, j) => j);
  let current = new Uint32Array(right.length + 1);
  for (let i = 1; i <= left.length; i++) {
    current[0] = i;
    const word = left[i - 1];
    for (let j = 1; j <= right.length; j++) {
      current[j] = Math.min(
        previous[j - 1] + (word === right[j - 1] ? 0 : 1), // substitute (or keep)
        previous[j] + 1, // delete
        current[j - 1] + 1, // insert
      );
    }
    [previous, current] = [current, previous];
  }
  const distance = previous[right.length];
  return { distance, normalised: distance / left.length };
}

/**
 * F1 of two multisets of texts compared by key (`keyOf`; texts without words are left out): matched = Σ
 * min(count in truth, count found). precision/recall/f1 are null when their denominator is 0; f1 is null
 * only when both sides are empty (nothing to find and nothing found), 0 when one side is.
 */
export function multisetF1(truth, found) {
  const count = (texts) => {
    const map = new Map();
    for (const text of texts) {
      const key = keyOf(text);
      if (key) map.set(key, (map.get(key) ?? 0) + 1);
    }
    return map;
  };
  const t = count(truth);
  const f = count(found);
  let matched = 0;
  for (const [key, n] of t) matched += Math.min(n, f.get(key) ?? 0);
  const truthCount = [...t.values()].reduce((s, n) => s + n, 0);
  const foundCount = [...f.values()].reduce((s, n) => s + n, 0);
  const precision = foundCount ? matched / foundCount : null;
  const recall = truthCount ? matched / truthCount : null;
  const f1 = truthCount + foundCount === 0 ? null : (2 * matched) / (truthCount + foundCount); // = 2PR/(P+R)
  const missing = [];
  const extra = [];
  for (const [key, n] of t) for (let k = f.get(key) ?? 0; k < n; k++) missing.push(key);
  for (const [key, n] of f) for (let k = t.get(key) ?? 0; k < n; k++) extra.push(key);
  return { truth: truthCount, found: foundCount, matched, precision, recall, f1, missing, extra };
}

/** F1 pooled over several multisetF1 results (micro average): 2 Σ matched / (Σ truth + Σ found). */
export function pooledF1(results) {
  const matched = results.reduce((s, r) => s + r.matched, 0);
  const total = results.reduce((s, r) => s + r.truth + r.found, 0);
  return total ? (2 * matched) / total : null;
}

/** Of the headings matched by key, the share whose level also agrees (null when none matched). */
export function headingLevelAgreement(truth, found) {
  const pool = new Map();
  for (const heading of found) {
    const list = pool.get(heading.key) ?? [];
    list.push(heading.level);
    pool.set(heading.key, list);
  }
  let matched = 0;
  let same = 0;
  for (const heading of truth) {
    const list = pool.get(heading.key);
    if (!heading.key || !list?.length) continue;
    matched++;
    const index = list.indexOf(heading.level);
    if (index >= 0) {
      same++;
      list.splice(index, 1);
    } else list.shift();
  }
  return matched ? same / matched : null;
}
