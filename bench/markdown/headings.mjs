#!/usr/bin/env node
// PDF to Markdown's headings against the PDFs' own outlines (bookmarks). Every corpus PDF under
// ../shared/corpus/{general,tables,structure,scanned,office} (not encrypted/ nor broken/) with at most 300
// pages whose outline (MuPDF's loadOutline) has at least 3 titled entries pointing into its pages is
// converted in-process with format "json" and the internal option outline: false, so that the engine finds
// headings from the page content alone. Outline entries whose title is not printed anywhere in the document
// (its text layer, as MuPDF reads it, searched with score.mjs's normaliseForSearch; entries pointing to a
// page with almost no text layer, a scan, are kept) are left out first,
// and the ≥ 3 entries are counted after that: an excerpt keeps its source's outline, whose entries for the
// pages gone point to its first page (ICDAR 2013's us-006 lists chapters it does not hold); --all-entries
// keeps them. Its heading elements are then matched with the outline entries
// (score.mjs's matchHeadings: one to one, in outline order; titles equal after normalising — NFKC, lower
// case, spaces collapsed, quotes and dashes folded, trailing dots dropped —, or one containing the other
// with the shorter ≥ 70 % of the longer's length, or either of these once leading numbering such as "1.2",
// "IV.", "a)", "Chapter 3 -" is stripped from both; an exact match beats a contained one, then the nearest
// page wins). Reported per file and overall (micro: summed counts; macro: mean of the files):
//
// - recall: outline entries matched by a heading / outline entries (goal ≥ 85 %);
// - precision: our headings matched by an outline entry / our headings (goal ≥ 80 %). A heading that the
//   outline does not list counts against precision, even when it is a real heading (many outlines list
//   only chapters or only some sections), so this precision is a lower bound;
// - level agreement over the matched pairs: "relative" = share whose level − least matched level equals
//   outline depth − least matched depth; "pairwise" = share of pairs of matched headings whose order by
//   our level agrees with their order by outline depth (Kendall-style, ties must tie).
//
//   pnpm exec turbo run build
//   node bench/markdown/headings.mjs [--files general/samplefiles_pdflatex-outline.pdf,tables/icdar2013_us-006.pdf] \
//     [--max-pages 300] [--json /tmp/markdown-headings.json] > /tmp/markdown-headings.md
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadMupdf } from "../../packages/mupdf/dist/index.js";
import { loadMarkdownEngine, runEngine } from "./engine.mjs";
import {
  corpusDir,
  flattenOutline,
  levelAgreement,
  markdownTable,
  matchHeadings,
  mean,
  normaliseForSearch,
  pct,
} from "./score.mjs";

const { values } = parseArgs({
  options: {
    files: { type: "string" },
    "max-pages": { type: "string", default: "300" },
    "min-entries": { type: "string", default: "3" },
    json: { type: "string" },
    "all-entries": { type: "boolean", default: false },
  },
});
const maxPages = Number(values["max-pages"]);
const minEntries = Number(values["min-entries"]);
const folders = ["general", "tables", "structure", "scanned", "office"];

/** The corpus PDFs to look at, as paths relative to the corpus ("general/x.pdf"). */
function candidates() {
  if (values.files) return values.files.split(",");
  return folders.flatMap((folder) =>
    existsSync(join(corpusDir, folder))
      ? readdirSync(join(corpusDir, folder))
          .filter((name) => name.toLowerCase().endsWith(".pdf"))
          .sort()
          .map((name) => `${folder}/${name}`)
      : [],
  );
}

/** Each candidate's page count and flattened outline; files MuPDF cannot open are skipped. */
async function outlines(paths) {
  const mupdf = await loadMupdf();
  const out = [];
  for (const path of paths) {
    let doc;
    try {
      doc = mupdf.Document.openDocument(readFileSync(join(corpusDir, path)), "application/pdf");
      if (doc.needsPassword()) continue;
      const pages = doc.countPages();
      const outlineEntries = flattenOutline(doc.loadOutline() ?? [], pages);
      let entries = outlineEntries;
      if (!values["all-entries"] && outlineEntries.length >= minEntries && pages <= maxPages) {
        const texts = [];
        for (let index = 0; index < pages; index++) {
          const page = doc.loadPage(index);
          const text = page.toStructuredText();
          texts.push(text.asText());
          text.destroy();
          page.destroy();
        }
        const printed = ` ${normaliseForSearch(texts.join("\n"))} `;
        // a page with (almost) no text layer, a scan, cannot tell: its entries stay
        const scanned = texts.map((text) => normaliseForSearch(text).length < 50);
        entries = outlineEntries.filter(
          (e) => scanned[e.page] || printed.includes(` ${normaliseForSearch(e.title)} `),
        );
      }
      out.push({ path, pages, entries, unprinted: outlineEntries.filter((e) => !entries.includes(e)) });
    } catch (error) {
      process.stderr.write(`${path}: not opened (${error.message})\n`);
    } finally {
      doc?.destroy();
    }
  }
  return out;
}

const all = await outlines(candidates());
const used = all.filter((f) => f.pages <= maxPages && f.entries.length >= minEntries);
const engine = await loadMarkdownEngine();
const rows = [];
for (const file of used) {
  const result = await runEngine(engine, join(corpusDir, file.path), { format: "json", outline: false });
  const headings = result.error
    ? []
    : JSON.parse(result.text)
        .elements.filter((e) => e.type === "heading")
        .map((e) => ({ text: e.text, page: e.page, level: e.level ?? 1 }));
  const { pairs, recall, precision } = matchHeadings(file.entries, headings);
  const agreement = levelAgreement(pairs);
  const matchedHeadings = new Set(pairs.map((p) => p.heading));
  rows.push({
    path: file.path,
    pages: file.pages,
    entries: file.entries.length,
    unprinted: file.unprinted.length,
    depths: new Set(file.entries.map((e) => e.depth)).size,
    headings: headings.length,
    matched: pairs.length,
    recall,
    precision: headings.length ? precision : null,
    relative: agreement.relative,
    pairwise: agreement.pairwise,
    seconds: result.seconds ?? 0,
    error: result.error,
    missed: file.entries.filter((e) => !pairs.some((p) => p.entry === e)).map((e) => e.title),
    extra: headings.filter((h) => !matchedHeadings.has(h)).map((h) => `${h.text} (p${h.page}, h${h.level})`),
    pairs: pairs.map((p) => ({
      title: p.entry.title,
      depth: p.entry.depth,
      heading: p.heading.text,
      level: p.heading.level,
    })),
  });
  process.stderr.write(
    `${file.path}: ${pairs.length}/${file.entries.length} entries found, ${headings.length} headings${result.error ? ` (${result.error})` : ""}\n`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Report

const total = (key) => rows.reduce((s, r) => s + r[key], 0);
const micro = {
  recall: total("entries") ? total("matched") / total("entries") : null,
  precision: total("headings") ? total("matched") / total("headings") : null,
};
const macro = {
  recall: mean(rows.map((r) => r.recall)),
  precision: mean(rows.map((r) => r.precision)),
  relative: mean(rows.map((r) => r.relative)),
  pairwise: mean(rows.map((r) => r.pairwise)),
};
console.log(
  `# PDF to Markdown headings against PDF outlines (${rows.length} files with ≥ ${minEntries} outline entries, ≤ ${maxPages} pages)\n`,
);
console.log(
  markdownTable(
    ["measure", "micro %", "macro %", "goal %"],
    [
      ["recall (outline entries found as headings)", pct(micro.recall), pct(macro.recall), "≥ 85"],
      [
        "precision (our headings in the outline; unlisted headings count against)",
        pct(micro.precision),
        pct(macro.precision),
        "≥ 80",
      ],
      ["level agreement, relative depth", "", pct(macro.relative), ""],
      ["level agreement, pairwise order", "", pct(macro.pairwise), ""],
    ],
  ),
);
console.log(
  `\n${total("entries")} outline entries (${total("unprinted")} more left out, their titles not printed in the document), ` +
    `${total("headings")} headings, ${total("matched")} matched.\n`,
);
console.log("## Per file\n");
console.log(
  markdownTable(
    [
      "file",
      "pages",
      "entries",
      "not printed",
      "depths",
      "headings",
      "matched",
      "recall %",
      "precision %",
      "level rel. %",
      "level pairs %",
      "seconds",
      "error",
    ],
    rows.map((r) => [
      r.path,
      r.pages,
      r.entries,
      r.unprinted,
      r.depths,
      r.headings,
      r.matched,
      pct(r.recall),
      pct(r.precision),
      pct(r.relative),
      pct(r.pairwise),
      r.seconds.toFixed(1),
      r.error ?? "",
    ]),
  ),
);
const skipped = all.filter((f) => !used.includes(f) && f.entries.length >= minEntries);
if (skipped.length)
  console.log(
    `\nLeft out for more than ${maxPages} pages: ${skipped.map((f) => `${f.path} (${f.pages})`).join(", ")}.`,
  );
console.log("\n## Diagnosis: outline entries not found, headings not in the outline (first 5 each)\n");
for (const r of rows) {
  if (!r.missed.length && !r.extra.length) continue;
  console.log(`- ${r.path}`);
  if (r.missed.length)
    console.log(
      `  - missed: ${r.missed
        .slice(0, 5)
        .map((t) => JSON.stringify(t))
        .join(", ")}`,
    );
  if (r.extra.length)
    console.log(
      `  - extra: ${r.extra
        .slice(0, 5)
        .map((t) => JSON.stringify(t))
        .join(", ")}`,
    );
}
if (values.json) writeFileSync(values.json, JSON.stringify({ micro, macro, files: rows }, null, 2));
