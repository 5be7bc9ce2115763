import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HtmlRenderer } from "../src/index.js";
import {
  corpusDir,
  createTestRenderer,
  defaults,
  htmlText,
  type LogEntry,
  pdfInfo,
  pdfText,
  recall,
  tempDir,
  words,
} from "./helpers.js";

const htmlDir = join(corpusDir, "html");
const files = (await readdir(htmlDir)).filter((name) => name.endsWith(".html")).sort();

/**
 * Pages each file prints to (A4, small margins, screen media), and the least recall of its words the
 * PDF text must reach. Below 1 only where the page hides text on purpose or cannot show it whole.
 */
const expected: Record<string, { pages: number | "any"; minRecall: number }> = {
  "gotenberg_pages-12.html": { pages: 12, minRecall: 1 },
  // Most of its words are hidden on purpose: per media (#print under screen), behind a 2 s timer
  // (#wait) and a reduced-motion query; the visible sentences are checked one by one below.
  "gotenberg_feature-rich.html": { pages: 1, minRecall: 0.3 },
  // Cells run off the right edge of the paper: Chromium clips them, as in a browser's print.
  "gotenberg_wide-table.html": { pages: 1, minRecall: 0.5 },
  "docling_wiki_duck.html": { pages: "any", minRecall: 0.95 },
  "docling_html_rich_table_cells.html": { pages: 2, minRecall: 0.98 },
  "tika_testHTML_charset_utf16le.html": { pages: 1, minRecall: 1 },
  "tika_testHTML_embedded_img.html": { pages: 1, minRecall: 1 },
  "tika_big-preamble.html": { pages: "any", minRecall: 0.95 },
  "samplefiles_habibi.html": { pages: 1, minRecall: 0.5 },
};

describe("the HTML corpus", () => {
  let renderer: HtmlRenderer;
  let logs: LogEntry[];
  let work: Awaited<ReturnType<typeof tempDir>>;
  const table: string[] = [];

  beforeAll(async () => {
    work = await tempDir();
    ({ renderer, logs } = createTestRenderer(work.path));
  });

  afterAll(async () => {
    await renderer.close();
    await work.remove();
    console.log(`file | pages | words | recall\n${table.join("\n")}`);
  });

  it("knows every file of the corpus", () => {
    expect(files.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(files)("%s renders with its text", async (name) => {
    const out = join(work.path, `${name}.pdf`);
    const started = performance.now();
    const result = await renderer.renderHtml(join(htmlDir, name), defaults, out);
    const ms = Math.round(performance.now() - started);
    const info = await pdfInfo(out);
    expect(result.pages).toBe(info.pages);
    const want = expected[name];
    if (want?.pages !== "any") expect(info.pages).toBe(want?.pages);
    const source = words(await htmlText(join(htmlDir, name)));
    const printed = words(await pdfText(out));
    const score = recall(source, printed);
    const missing = [...source].filter((word) => !printed.has(word)).slice(0, 8);
    table.push(
      `${name} | ${info.pages} | ${source.size} | ${score.toFixed(3)} (${ms} ms) ${missing.join(" ")}`,
    );
    expect(score).toBeGreaterThanOrEqual(want?.minRecall ?? 1);
  });

  it("does not wait on the broken and remote stylesheets of feature-rich.html", async () => {
    const out = join(work.path, "feature-rich-again.pdf");
    // Waiting on them would print only when the settle budget ran out, and say so in the log; the page
    // settles as soon as the refused and broken loads have failed.
    const before = logs.length;
    await renderer.renderHtml(join(htmlDir, "gotenberg_feature-rich.html"), defaults, out);
    expect(logs.slice(before).map((entry) => entry.msg)).not.toContain("printing before the page settled");
    const text = await pdfText(out);
    expect(text).toContain("Emulated media type is 'screen'.");
    expect(text).toContain("JavaScript is enabled.");
  });

  it("decodes UTF-16LE with a BOM, and windows-1251 declared 40 KB into the file", async () => {
    const utf16 = join(work.path, "utf16.pdf");
    await renderer.renderHtml(join(htmlDir, "tika_testHTML_charset_utf16le.html"), defaults, utf16);
    expect(await pdfText(utf16)).toContain("This is a sample text");
    const cyrillic = join(work.path, "cyrillic.pdf");
    await renderer.renderHtml(join(htmlDir, "tika_big-preamble.html"), defaults, cyrillic);
    expect(await pdfText(cyrillic)).toContain("Агентства недвижимости");
  });
});
