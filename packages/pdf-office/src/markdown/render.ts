import type { MarkdownElement, MarkdownTableCell } from "@octavo/contracts/markdown-document";

export interface RenderOptions {
  images: "none" | "placeholder" | "files";
  /** Mark where each of these 1-based pages starts. */
  pageBreaks: number[] | undefined;
}

/** The elements as GitHub-flavoured Markdown, one blank line between blocks. */
export function toMarkdown(elements: MarkdownElement[], options: RenderOptions): string {
  return joinBlocks(
    elements,
    options,
    (element) => markdownOf(element, options),
    (page) => `<!-- page ${page} -->`,
  );
}

/** The elements as plain text in reading order, one blank line between blocks; a form feed between pages. */
export function toText(elements: MarkdownElement[], options: RenderOptions): string {
  const first = options.pageBreaks?.[0];
  return joinBlocks(elements, options, textOf, (page) => (page === first ? "" : "\f")).replace(
    /\n\n\f\n\n/g,
    "\n\n\f",
  );
}

function joinBlocks(
  elements: MarkdownElement[],
  options: RenderOptions,
  render: (element: MarkdownElement) => string,
  pageMark: (page: number) => string,
): string {
  const blocks: string[] = [];
  const marks = [...(options.pageBreaks ?? [])];
  for (const element of elements) {
    while (marks.length > 0 && (marks[0] as number) <= element.page)
      blocks.push(pageMark(marks.shift() as number));
    blocks.push(render(element));
  }
  blocks.push(...marks.map(pageMark));
  return `${blocks.filter((block) => block !== "").join("\n\n")}\n`;
}

/** One element's Markdown (a single block, possibly of several lines). */
export function markdownOf(element: MarkdownElement, options: Pick<RenderOptions, "images">): string {
  switch (element.type) {
    case "heading":
      return `${"#".repeat(element.level ?? 1)} ${withLinks(element).replace(/\s*\n\s*/g, " ")}`;
    case "list":
      return (element.items ?? [])
        .map((item) => {
          const indent = "  ".repeat(item.level - 1);
          const marker = /^\d{1,9}[.)]$/.test(item.marker)
            ? item.marker
            : item.ordered
              ? `- ${item.marker}`
              : "-";
          return `${indent}${marker} ${withLinks(item)}`;
        })
        .join("\n");
    case "table":
      return tableMarkdown(element);
    case "figure":
      if (options.images === "none") return "";
      if (element.image === undefined) return "<!-- image -->";
      return `![${escapeBrackets(element.text || "figure")}](${encodeURI(element.image)})`;
    case "code":
      return fenced(element.text);
    default:
      return escapeBlockStart(withLinks(element));
  }
}

function textOf(element: MarkdownElement): string {
  switch (element.type) {
    case "list":
      return (element.items ?? [])
        .map((item) => `${"  ".repeat(item.level - 1)}${item.marker} ${item.text}`)
        .join("\n");
    case "figure":
      return "";
    default:
      return element.text;
  }
}

/**
 * Text as Markdown shows it: a backslash before punctuation would escape it ("\\#" shows "#"), so the
 * PDF's own are doubled, and "<" before a letter would open an HTML tag ("<lazy>" would vanish).
 */
function escapeInline(text: string): string {
  return text.replace(/\\(?=[!-/:-@[-`{-~])/g, "\\\\").replace(/<(?=[A-Za-z/!?])/g, "&lt;");
}

/** The text (backslashes escaped) with each link's first occurrence made a Markdown link. */
function withLinks(element: { text: string; links?: { text: string; uri: string }[] }): string {
  let text = escapeInline(element.text);
  for (const link of element.links ?? []) {
    if (!/^(https?:|mailto:)/i.test(link.uri)) continue;
    const anchor = escapeInline(link.text);
    const at = text.indexOf(anchor);
    if (at < 0) continue;
    const markdown = `[${escapeBrackets(anchor)}](${link.uri.replace(/[()\s]/g, encodeURIComponent)})`;
    text = text.slice(0, at) + markdown + text.slice(at + anchor.length);
  }
  return text;
}

function escapeBrackets(text: string): string {
  return text.replace(/[[\]]/g, "\\$&");
}

/** Text that would start a heading, a list, a quote or a rule in Markdown is escaped. */
function escapeBlockStart(text: string): string {
  const ordered = /^(\d{1,9})([.)])(?=\s)/.exec(text);
  if (ordered) return `${ordered[1]}\\${text.slice(ordered[1]?.length ?? 0)}`;
  return text.replace(/^(#{1,6}(?=\s)|[-+*](?=\s)|>|={3,}|-{3,})/, "\\$1");
}

function fenced(code: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${code}\n${fence}`;
}

/** A GFM pipe table when no cell spans (its first row the header), else an HTML table with the spans. */
function tableMarkdown(element: MarkdownElement): string {
  const cells = element.cells ?? [];
  const rows = element.rows ?? 0;
  const columns = element.columns ?? 0;
  if (rows === 0 || columns === 0) return "";
  if (cells.some((cell) => cell.rowSpan > 1 || cell.columnSpan > 1)) return htmlTable(cells, rows);
  const grid = Array.from({ length: rows }, () => Array.from({ length: columns }, () => ""));
  for (const cell of cells) {
    const row = grid[cell.row];
    if (row !== undefined && cell.column < columns) row[cell.column] = pipeCell(cell.text);
  }
  const line = (row: string[]) => `| ${row.join(" | ")} |`;
  const [header, ...body] = grid;
  return [line(header ?? []), line(Array.from({ length: columns }, () => "---")), ...body.map(line)].join(
    "\n",
  );
}

function pipeCell(text: string): string {
  return escapeInline(text)
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|");
}

function htmlTable(cells: MarkdownTableCell[], rows: number): string {
  const lines = ["<table>"];
  for (let row = 0; row < rows; row += 1) {
    const tag = row === 0 ? "th" : "td";
    const inRow = cells.filter((cell) => cell.row === row).sort((a, b) => a.column - b.column);
    const html = inRow.map((cell) => {
      const spans =
        (cell.rowSpan > 1 ? ` rowspan="${cell.rowSpan}"` : "") +
        (cell.columnSpan > 1 ? ` colspan="${cell.columnSpan}"` : "");
      return `<${tag}${spans}>${escapeHtml(cell.text)}</${tag}>`;
    });
    lines.push(`<tr>${html.join("")}</tr>`);
  }
  lines.push("</table>");
  return lines.join("\n");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
