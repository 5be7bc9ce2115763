import type { MarkdownChunk, MarkdownElement } from "@octavo/contracts/markdown-document";
import { markdownOf } from "./render.js";

/** One element's Markdown in pieces that may each start a new chunk: a table's rows, a paragraph's sentences. */
interface Piece {
  element: number;
  text: string;
  /** Joined to the previous piece of the same element with this. */
  joiner: string;
}

/**
 * Groups the elements into chunks of at most `maxCharacters` characters of Markdown, in order. A heading
 * starts a new chunk, and every chunk carries the path of headings its text is under, its own first. A table is cut only between
 * rows (each part repeats the header row) and a paragraph only between sentences; a row or sentence
 * longer than the limit makes a chunk of its own, over the limit, rather than be cut.
 */
export function chunkElements(elements: MarkdownElement[], maxCharacters: number): MarkdownChunk[] {
  const chunks: MarkdownChunk[] = [];
  const path: { level: number; text: string }[] = [];
  // A chunk takes its heading path from where its first block that is not a heading sits, so the
  // headings that open it are in its path.
  let current: { pieces: Piece[]; length: number; headings?: string[]; content: boolean } | undefined;
  const headingPath = () => path.map((heading) => heading.text);
  const close = () => {
    if (current !== undefined && current.pieces.length > 0) {
      chunks.push(chunkOf(current.pieces, current.headings ?? headingPath(), elements));
    }
    current = undefined;
  };
  for (const [index, element] of elements.entries()) {
    if (element.type === "heading") {
      // Headings in a row stay together, with what follows them.
      if (current?.content) close();
      const level = element.level ?? 1;
      while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= level) path.pop();
      path.push({ level, text: element.text });
    }
    for (const piece of piecesOf(element, index, maxCharacters)) {
      const added = piece.text.length + (current?.pieces.length ? 2 : 0);
      if (current !== undefined && current.length + added > maxCharacters) close();
      current ??= { pieces: [], length: 0, content: false };
      if (element.type !== "heading" && !current.content) {
        current.content = true;
        current.headings = headingPath();
      }
      current.length += added;
      current.pieces.push(piece);
    }
  }
  close();
  return chunks;
}

function chunkOf(pieces: Piece[], headings: string[], elements: MarkdownElement[]): MarkdownChunk {
  let text = "";
  let last: number | undefined;
  for (const piece of pieces) {
    if (text !== "") text += piece.element === last ? piece.joiner : "\n\n";
    text += piece.text;
    last = piece.element;
  }
  const indexes = [...new Set(pieces.map((piece) => piece.element))];
  const pages = indexes.map((index) => elements[index]?.page ?? 1);
  return {
    text,
    elements: indexes,
    headings,
    pages: { first: Math.min(...pages), last: Math.max(...pages) },
  };
}

function piecesOf(element: MarkdownElement, index: number, maxCharacters: number): Piece[] {
  const markdown = markdownOf(element, { images: "placeholder" });
  if (markdown === "" || markdown.length <= maxCharacters)
    return markdown === "" ? [] : [{ element: index, text: markdown, joiner: "" }];
  if (element.type === "table") return tableRows(markdown, index, maxCharacters);
  if (element.type === "paragraph" || element.type === "footnote" || element.type === "caption") {
    return sentences(markdown).map((text) => ({ element: index, text, joiner: " " }));
  }
  // Lists and code are cut between lines.
  return markdown.split("\n").map((text) => ({ element: index, text, joiner: "\n" }));
}

/**
 * A long table as groups of whole rows, each group a table of its own under the header row: a pipe
 * table's first two lines, or an HTML table's first row (a rowspan reaching over a cut ends there; its
 * text stays).
 */
function tableRows(markdown: string, index: number, maxCharacters: number): Piece[] {
  const lines = markdown.split("\n");
  const html = lines[0] === "<table>";
  const head = lines.slice(0, 2).join("\n");
  const body = html ? lines.slice(2, -1) : lines.slice(2);
  const tail = html ? "\n</table>" : "";
  const pieces: Piece[] = [];
  let group: string[] = [];
  const flush = () => {
    if (group.length > 0)
      pieces.push({ element: index, text: `${[head, ...group].join("\n")}${tail}`, joiner: "\n\n" });
    group = [];
  };
  let length = head.length + tail.length;
  for (const row of body) {
    if (group.length > 0 && length + row.length + 1 > maxCharacters) {
      flush();
      length = head.length + tail.length;
    }
    group.push(row);
    length += row.length + 1;
  }
  flush();
  return pieces.length > 0 ? pieces : [{ element: index, text: markdown, joiner: "" }];
}

const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });

function sentences(text: string): string[] {
  return [...sentenceSegmenter.segment(text)]
    .map((segment) => segment.segment.trim())
    .filter((part) => part !== "");
}
