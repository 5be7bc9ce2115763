import { execFileSync } from "node:child_process";
import type { PageLayout } from "../src/index.js";
import { lineText } from "../src/lines.js";

/** Lower-case words of two or more letters or digits, after Unicode compatibility folding. */
export function wordsOf(text: string): Set<string> {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  return new Set(words);
}

/** Every piece of text the layout holds: paragraph lines and table cells, in block order. */
export function layoutText(page: PageLayout): string {
  const parts: string[] = [];
  for (const block of page.blocks) {
    if (block.kind === "paragraph") parts.push(...block.lines.map(lineText));
    else if (block.kind === "table") parts.push(...block.cells.map((c) => c.text));
  }
  return parts.join("\n");
}

/** poppler's pdftotext -layout of pages first..last (1-based), the reference text. */
export function pdftotext(file: string, first: number, last: number): string {
  return execFileSync("pdftotext", ["-layout", "-f", String(first), "-l", String(last), file, "-"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
}

export function recall(found: Set<string>, reference: Set<string>): number {
  let hit = 0;
  for (const w of reference) if (found.has(w)) hit++;
  return reference.size ? hit / reference.size : 1;
}
