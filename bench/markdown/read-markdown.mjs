// Reads the tables back out of a Markdown string, as a reader of PDF to Markdown's output would: GFM pipe
// tables (a header row, a delimiter row `|---|:--:|`, body rows up to a blank line or a line without a pipe)
// and HTML `<table>`s with rowspan/colspan (PDF to Markdown writes these when a cell spans). Tables inside
// fenced code blocks are not tables. Each table comes back as a grid of cells in the JSON format's shape
// ({ row, column, rowSpan, columnSpan, text }, a merged area one cell), its text plain: inline Markdown
// (emphasis, code spans, links, backslash escapes, `<br>`) and HTML tags and entities undone.
//
//   import { readMarkdownTables, markdownToText } from "./read-markdown.mjs";
//   for (const table of readMarkdownTables(markdown)) console.log(table.kind, table.rows, table.columns);
//
// Self-test: node --test bench/markdown/score.test.mjs

const NAMED_ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Decodes HTML character references: the five XML ones, &nbsp; and numeric ones. */
export function decodeEntities(text) {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * The plain text of a piece of inline Markdown: code spans' content kept as is, images by their alt text,
 * links by their text, `**`/`__`/`*`/`_`/`~~` emphasis markers dropped when they pair up, `<br>` as a space,
 * other HTML tags dropped, backslash escapes and entities undone.
 */
export function inlineToText(markdown) {
  const codes = [];
  let text = markdown.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_, _ticks, code) => {
    codes.push(code.trim());
    return `\uE000${codes.length - 1}\uE000`;
  });
  text = text
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/<\/?[a-zA-Z][^<>]*>/g, "")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(?<![\\\w*])\*(?=[^\s*])([^*]*?[^\s\\*])\*(?!\*)/g, "$1")
    .replace(/(?<![\\\w])_(?=[^\s_])([^_]*?[^\s\\_])_(?!\w)/g, "$1")
    .replace(/\\([!-/:-@[-`{-~])/g, "$1");
  text = decodeEntities(text);
  return text.replace(/\uE000(\d+)\uE000/g, (_, index) => codes[Number(index)]);
}

/** The text of an HTML fragment: `<br>` as a space, other tags dropped, entities decoded, spaces collapsed. */
export function htmlToText(html) {
  return decodeEntities(html.replace(/<br\s*\/?>/gi, " ").replace(/<\/?[a-zA-Z][^<>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
}

/** Splits a pipe-table row into its cells' raw Markdown: outer pipes dropped, `\|` kept inside a cell. */
export function splitPipeRow(line) {
  let body = line.trim();
  if (body.startsWith("|")) body = body.slice(1);
  if (body.endsWith("|") && !body.endsWith("\\|")) body = body.slice(0, -1);
  const cells = [];
  let cell = "";
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\" && body[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (body[i] === "|") {
      cells.push(cell);
      cell = "";
    } else cell += body[i];
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

const DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const hasPipe = (line) => /(^|[^\\])\|/.test(line);

/**
 * Cells of an HTML table, placed on a grid: a cell goes in the first column of its row not taken by a
 * rowspan from above. `<th>` and `<td>` are alike; `<thead>`, `<tbody>`, `<caption>` and other tags are
 * skipped (a caption's text is not a cell). Cell text is HTML (Markdown is not read inside an HTML block).
 */
export function parseHtmlTable(html) {
  const cells = [];
  const taken = new Set(); // "row,column" covered by a cell placed earlier
  let row = -1;
  let column = 0;
  let open = null; // the cell being read
  let inCaption = false;
  const close = () => {
    if (!open) return;
    open.text = htmlToText(open.raw);
    delete open.raw;
    open = null;
  };
  const startRow = () => {
    close();
    row += 1;
    column = 0;
  };
  for (const match of html.matchAll(/<(\/?)([a-zA-Z]+)([^<>]*)>|([^<]+|<)/g)) {
    const [, slash, tagName, attributes, text] = match;
    if (text !== undefined) {
      if (open && !inCaption) open.raw += text;
      continue;
    }
    const tag = tagName.toLowerCase();
    if (tag === "caption") {
      inCaption = !slash;
      continue;
    }
    if (tag === "tr") {
      if (slash) close();
      else startRow();
    } else if (tag === "td" || tag === "th") {
      if (slash) {
        close();
        continue;
      }
      if (row < 0) startRow();
      close();
      const span = (name) => {
        const found = new RegExp(`\\b${name}\\s*=\\s*["']?(\\d+)`, "i").exec(attributes);
        return found ? Math.max(1, Number(found[1])) : 1;
      };
      const rowSpan = span("rowspan");
      const columnSpan = span("colspan");
      while (taken.has(`${row},${column}`)) column++;
      open = { row, column, rowSpan, columnSpan, text: "", raw: "" };
      if (tag === "th") open.header = true;
      cells.push(open);
      for (let r = row; r < row + rowSpan; r++)
        for (let c = column; c < column + columnSpan; c++) taken.add(`${r},${c}`);
      column += columnSpan;
    } else if (open && !inCaption && tag === "br") open.raw += " ";
    else if (open && !inCaption) open.raw += match[0];
  }
  close();
  return gridOf(cells);
}

/** A table object from its cells: row and column counts from the cells' extents. */
function gridOf(cells, extra = {}) {
  const rows = Math.max(0, ...cells.map((c) => c.row + c.rowSpan));
  const columns = Math.max(0, ...cells.map((c) => c.column + c.columnSpan));
  return { rows, columns, cells, ...extra };
}

/**
 * Every table of a Markdown string, in order: `{ kind: "pipe" | "html", rows, columns, cells, line }`
 * (`line` the 0-based line it starts on). A pipe table has header row + body rows; a row with fewer cells
 * than the header is padded with empty ones, extra cells are dropped (as GFM renders them).
 */
export function readMarkdownTables(markdown) {
  const lines = markdown.split(/\r?\n/);
  const tables = [];
  let fence = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    if (/<table\b/i.test(line)) {
      let html = "";
      let j = i;
      for (; j < lines.length; j++) {
        html += `${lines[j]}\n`;
        if (/<\/table>/i.test(lines[j])) break;
      }
      const start = html.search(/<table\b/i);
      const end = html.search(/<\/table>/i);
      tables.push({ kind: "html", line: i, ...parseHtmlTable(html.slice(start, end < 0 ? undefined : end)) });
      i = j;
      continue;
    }
    if (hasPipe(line) && i + 1 < lines.length && DELIMITER_ROW.test(lines[i + 1])) {
      const header = splitPipeRow(line);
      const width = header.length;
      if (splitPipeRow(lines[i + 1]).length !== width) continue;
      const rowTexts = [header];
      let j = i + 2;
      for (; j < lines.length; j++) {
        const body = lines[j];
        if (body.trim() === "" || !hasPipe(body) || /^\s{0,3}(#|>|```|~~~)/.test(body)) break;
        rowTexts.push(splitPipeRow(body));
      }
      const cells = [];
      rowTexts.forEach((texts, row) => {
        for (let column = 0; column < width; column++) {
          const text = inlineToText(texts[column] ?? "")
            .replace(/\s+/g, " ")
            .trim();
          cells.push({ row, column, rowSpan: 1, columnSpan: 1, text });
        }
      });
      tables.push({ kind: "pipe", line: i, ...gridOf(cells) });
      i = j - 1;
    }
  }
  return tables;
}

/**
 * The text of a Markdown document without its markup, for searching text in it: fenced-code fences,
 * heading and blockquote markers, list markers, table delimiter rows and pipes, HTML tags, inline markup.
 * Line structure is kept (one output line per input line).
 */
export function markdownToText(markdown) {
  return markdown
    .split(/\r?\n/)
    .map((line) => {
      if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) return "";
      if (DELIMITER_ROW.test(line) && line.includes("-")) return "";
      let text = line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s*(>\s*)+/, "")
        .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, "");
      if (hasPipe(text)) text = splitPipeRow(text).join(" ");
      return inlineToText(text);
    })
    .join("\n");
}
