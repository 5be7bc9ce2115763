import type { Mupdf } from "@octavo/mupdf";

export type Box = [number, number, number, number];

/**
 * A page's text as one string, in MuPDF's reading order, with the box of every UTF-16 unit: a match's boxes
 * are those of the characters it spans. Lines end in "\n" and blocks in a blank line, so patterns see
 * line breaks where the page has them; those separators have no box.
 */
export interface PageText {
  /** What the rules search: the page's text with words hyphenated at a line's end joined again. */
  text: string;
  /** Per UTF-16 unit of `text`: its unit in the page's text, to which `boxes` and `lines` belong. */
  origin: number[];
  /** Per UTF-16 unit of `text`: the character's box (display space, y down), or undefined for a separator. */
  boxes: (Box | undefined)[];
  /** Per UTF-16 unit: the line it is on (-1 for a separator), so a match is boxed line by line. */
  lines: number[];
}

export function pageText(page: Mupdf.PDFPage): PageText {
  // With the annotations' and widgets' appearances: text shown there is on the page as much as its content's.
  const list = page.toDisplayList(true);
  const stext = list.toStructuredText("preserve-whitespace,preserve-ligatures");
  list.destroy();
  const parts: string[] = [];
  const boxes: (Box | undefined)[] = [];
  const lines: number[] = [];
  let line = -1;
  const separator = (char: string): void => {
    parts.push(char);
    boxes.push(undefined);
    lines.push(-1);
  };
  try {
    stext.walk({
      beginLine() {
        line += 1;
      },
      onChar(c, _origin, font, _size, quad) {
        font.destroy();
        const xs = [quad[0], quad[2], quad[4], quad[6]];
        const ys = [quad[1], quad[3], quad[5], quad[7]];
        const box: Box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
        parts.push(c);
        for (let unit = 0; unit < c.length; unit += 1) {
          boxes.push(box);
          lines.push(line);
        }
      },
      endLine() {
        separator("\n");
      },
      endTextBlock() {
        separator("\n");
      },
    });
  } finally {
    stext.destroy();
  }
  return { ...joinHyphenation(parts.join("")), boxes, lines };
}

/** "Trace-\nMonkey" is searched as "TraceMonkey": a hyphen and line break between two letters go. */
function joinHyphenation(raw: string): { text: string; origin: number[] } {
  const kept: string[] = [];
  const origin: number[] = [];
  for (let unit = 0; unit < raw.length; unit += 1) {
    const breaks = raw[unit] === "-" && raw[unit + 1] === "\n";
    if (breaks && /\p{L}/u.test(raw[unit - 1] ?? "") && /\p{L}/u.test(raw[unit + 2] ?? "")) {
      unit += 1;
      continue;
    }
    kept.push(raw[unit] ?? "");
    origin.push(unit);
  }
  return { text: kept.join(""), origin };
}

/**
 * The boxes of `text`'s units from `start` to `end`, joined line by line: a hyphenated word's two halves,
 * and its hyphen, are boxed where they are.
 */
export function matchBoxes(page: PageText, start: number, end: number): Box[] {
  const byLine = new Map<number, Box>();
  const first = page.origin[start] ?? 0;
  const last = page.origin[end - 1] ?? first;
  for (let unit = first; unit <= last; unit += 1) {
    const box = page.boxes[unit];
    const line = page.lines[unit] ?? -1;
    if (box === undefined) continue;
    const joined = byLine.get(line);
    byLine.set(
      line,
      joined === undefined
        ? box
        : [
            Math.min(joined[0], box[0]),
            Math.min(joined[1], box[1]),
            Math.max(joined[2], box[2]),
            Math.max(joined[3], box[3]),
          ],
    );
  }
  return [...byLine.values()];
}
