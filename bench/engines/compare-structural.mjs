#!/usr/bin/env node
// Compares @octavo/engines with the design card's pdf-lib and node-qpdf2 on the six structural operations:
// speed (in-process medians), bookmarks kept by merge, and robustness over the corpus's broken/ and
// encrypted/ folders. pdf-lib and node-qpdf2 are installed into a scratch directory outside the repo.
//
//   pnpm --filter @octavo/engines build
//   node bench/engines/compare-structural.mjs [--runs 5] [--only speed|robustness]
//
// Prints Markdown tables (the figures in docs/engines.md come from this script).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpusDir = join(repoRoot, "..", "shared", "corpus");
const depsDir = join(tmpdir(), "octavo-bench-deps");
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 5) || 5;
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;

if (
  !existsSync(join(depsDir, "node_modules", "pdf-lib")) ||
  !existsSync(join(depsDir, "node_modules", "node-qpdf2"))
) {
  execFileSync("npm", ["install", "--prefix", depsDir, "--no-save", "pdf-lib@1.17.1", "node-qpdf2@6.0.0"], {
    stdio: "inherit",
  });
}
const engines = await import(pathToFileURL(join(repoRoot, "packages", "engines", "dist", "index.js")).href);
// One MuPDF instance for the engines and the bench's own checks (@octavo/mupdf: a second copy of MuPDF.js
// in the process would take over the first one's callbacks).
const { loadMupdf } = await import(
  pathToFileURL(join(repoRoot, "packages", "mupdf", "dist", "index.js")).href
);
const mupdf = await loadMupdf();
const pdfLib = await import(pathToFileURL(join(depsDir, "node_modules", "pdf-lib", "cjs", "index.js")).href);
const qpdf2 = await import(
  pathToFileURL(join(depsDir, "node_modules", "node-qpdf2", "dist", "index.js")).href
);

const workRoot = await mkdtemp(join(tmpdir(), "octavo-bench-"));
const fresh = () => mkdtemp(join(workRoot, "w-"));
const corpus = (relative) => join(corpusDir, relative);

// ---------- judging helpers (independent of the engines under test) ----------

function tool(program, toolArgs) {
  try {
    return {
      code: 0,
      stdout: execFileSync(program, toolArgs, {
        stdio: ["ignore", "pipe", "pipe"],
        maxBuffer: 1 << 28,
      }).toString(),
    };
  } catch (error) {
    return { code: typeof error.status === "number" ? error.status : -1, stdout: String(error.stdout ?? "") };
  }
}
const qpdfCheckPasses = (path) => [0, 3].includes(tool("qpdf", ["--check", path]).code);
const popplerPages = (path) => {
  const info = tool("pdfinfo", [path]);
  if (info.code !== 0 || /^Encrypted:\s+yes/m.test(info.stdout)) return undefined;
  const pages = /^Pages:\s+(\d+)/m.exec(info.stdout)?.[1];
  return pages === undefined ? undefined : Number(pages);
};
const textChars = (path) => tool("pdftotext", ["-q", path, "-"]).stdout.replace(/\s+/g, "").length;
async function mupdfView(path) {
  try {
    const doc = new mupdf.PDFDocument(await readFile(path));
    try {
      if (doc.needsPassword() || doc.getMetaData("encryption") !== "None") return undefined;
      const pages = doc.countPages();
      // /Count can lie (page-tree loops, bombs): the last page must be reachable.
      if (pages > 0) doc.findPage(pages - 1);
      let bookmarks = 0;
      const walk = (items) => {
        for (const item of items) {
          bookmarks += 1;
          walk(item.down ?? []);
        }
      };
      walk(doc.loadOutline() ?? []);
      return { pages, bookmarks };
    } finally {
      doc.destroy();
    }
  } catch {
    return undefined;
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Runs `task` once to warm up, then `runs` times; returns the median milliseconds and the last output. */
async function timed(task) {
  let output = await task();
  const times = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    output = await task();
    times.push(performance.now() - started);
  }
  return { ms: median(times), output };
}

// ---------- the operations, per engine ----------

const mergeFiles = [
  "general/govdocs_error_set_1_316267.pdf",
  "general/govdocs_error_set_2_064034.pdf",
  "general/samplefiles_GeoTopo-komprimiert.pdf",
].map(corpus);
const bigFile = corpus("general/samplefiles_GeoTopo-komprimiert.pdf");
const damagedBig = corpus("broken/govdocs_error_set_2_027613.pdf");
const input = (path) => ({ path, name: basename(path) });

const pdfLibOps = {
  async merge(paths, out) {
    const merged = await pdfLib.PDFDocument.create();
    for (const path of paths) {
      const source = await pdfLib.PDFDocument.load(await readFile(path));
      for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page);
    }
    await writeFile(out, await merged.save());
    return out;
  },
  async split(path, dir) {
    const source = await pdfLib.PDFDocument.load(await readFile(path));
    const outputs = [];
    for (const index of source.getPageIndices()) {
      const part = await pdfLib.PDFDocument.create();
      const [page] = await part.copyPages(source, [index]);
      part.addPage(page);
      const out = join(dir, `p${index + 1}.pdf`);
      await writeFile(out, await part.save());
      outputs.push(out);
    }
    return outputs;
  },
  async rotate(path, out) {
    const doc = await pdfLib.PDFDocument.load(await readFile(path));
    for (const page of doc.getPages())
      page.setRotation(pdfLib.degrees((page.getRotation().angle + 90) % 360));
    await writeFile(out, await doc.save());
    return out;
  },
  async rewrite(path, out) {
    // pdf-lib logs every object it cannot parse to the console; keep the tables readable.
    const { log, warn } = console;
    console.log = () => {};
    console.warn = () => {};
    try {
      const doc = await pdfLib.PDFDocument.load(await readFile(path));
      await writeFile(out, await doc.save());
      return out;
    } finally {
      console.log = log;
      console.warn = warn;
    }
  },
};

async function speed() {
  const rows = [];
  const add = (operation, engine, result, note = "") => rows.push({ operation, engine, ms: result.ms, note });

  // merge + bookmarks (208 in the three inputs)
  let expectedBookmarks = 0;
  for (const path of mergeFiles) expectedBookmarks += (await mupdfView(path)).bookmarks;
  const octavoMerge = await timed(
    async () => (await engines.merge(mergeFiles.map(input), {}, { workDir: await fresh() })).outputs[0].path,
  );
  add(
    "merge 3 files, 334 p",
    "@octavo/engines (MuPDF.js)",
    octavoMerge,
    `${(await mupdfView(octavoMerge.output)).bookmarks}/${expectedBookmarks} bookmarks`,
  );
  const libMerge = await timed(async () => pdfLibOps.merge(mergeFiles, join(await fresh(), "m.pdf")));
  add(
    "merge 3 files, 334 p",
    "pdf-lib",
    libMerge,
    `${(await mupdfView(libMerge.output)).bookmarks}/${expectedBookmarks} bookmarks`,
  );
  rows.push({
    operation: "merge 3 files, 334 p",
    engine: "node-qpdf2",
    ms: undefined,
    note: "no merge function",
  });

  // split per page
  const octavoSplit = await timed(
    async () => (await engines.split(input(bigFile), {}, { workDir: await fresh() })).outputs.length,
  );
  add("split 117 p → 117 files", "@octavo/engines (qpdf)", octavoSplit, `${octavoSplit.output} files`);
  const libSplit = await timed(async () => (await pdfLibOps.split(bigFile, await fresh())).length);
  add("split 117 p → 117 files", "pdf-lib", libSplit, `${libSplit.output} files`);
  rows.push({
    operation: "split 117 p → 117 files",
    engine: "node-qpdf2",
    ms: undefined,
    note: "no split function",
  });

  // rotate
  add(
    "rotate 117 p +90",
    "@octavo/engines (qpdf)",
    await timed(
      async () =>
        (await engines.rotate(input(bigFile), { angle: 90 }, { workDir: await fresh() })).outputs[0].path,
    ),
  );
  add(
    "rotate 117 p +90",
    "pdf-lib",
    await timed(async () => pdfLibOps.rotate(bigFile, join(await fresh(), "r.pdf"))),
  );
  rows.push({
    operation: "rotate 117 p +90",
    engine: "node-qpdf2",
    ms: undefined,
    note: "no rotate function",
  });

  // encrypt AES-256
  const protectOptions = {
    userPassword: "user",
    allowPrinting: true,
    allowCopying: false,
    allowEditing: false,
  };
  const octavoProtect = await timed(
    async () =>
      (await engines.protect(input(bigFile), protectOptions, { workDir: await fresh() })).outputs[0].path,
  );
  add("encrypt AES-256 (117 p)", "@octavo/engines (qpdf)", octavoProtect, "password in a 0600 job file");
  add(
    "encrypt AES-256 (117 p)",
    "node-qpdf2",
    await timed(async () => {
      const out = join(await fresh(), "e.pdf");
      await qpdf2.encrypt({
        input: bigFile,
        output: out,
        keyLength: 256,
        password: { user: "user", owner: "owner" },
        restrictions: { print: "full", extract: "n", modify: "none" },
      });
      return out;
    }),
    "password on argv",
  );
  rows.push({
    operation: "encrypt AES-256 (117 p)",
    engine: "pdf-lib",
    ms: undefined,
    note: "cannot encrypt",
  });

  // decrypt the file octavo encrypted
  const encrypted = octavoProtect.output;
  add(
    "decrypt AES-256 (117 p)",
    "@octavo/engines (qpdf)",
    await timed(
      async () =>
        (await engines.unlock(input(encrypted), { password: "user" }, { workDir: await fresh() })).outputs[0]
          .path,
    ),
    "MuPDF checks the password first and validates the output",
  );
  add(
    "decrypt AES-256 (117 p)",
    "node-qpdf2",
    await timed(async () => {
      const out = join(await fresh(), "d.pdf");
      await qpdf2.decrypt({ input: encrypted, output: out, password: "user" });
      return out;
    }),
    "password on argv",
  );
  rows.push({
    operation: "decrypt AES-256 (117 p)",
    engine: "pdf-lib",
    ms: undefined,
    note: "cannot decrypt",
  });

  // repair the damaged 429-page file
  const octavoRepair = await timed(
    async () => (await engines.repair(input(damagedBig), {}, { workDir: await fresh() })).outputs[0].path,
  );
  add(
    "repair 429 p (damaged)",
    "@octavo/engines (cascade)",
    octavoRepair,
    `qpdf --check ${qpdfCheckPasses(octavoRepair.output) ? "passes" : "FAILS"}; ${popplerPages(octavoRepair.output)} p`,
  );
  const libRepair = await timed(async () => pdfLibOps.rewrite(damagedBig, join(await fresh(), "l.pdf")));
  add(
    "repair 429 p (damaged)",
    "pdf-lib (load+save)",
    libRepair,
    `qpdf --check ${qpdfCheckPasses(libRepair.output) ? "passes" : "FAILS"}; ${popplerPages(libRepair.output)} p`,
  );
  let qpdf2Outcome = "";
  const qpdf2Repair = await timed(async () => {
    const out = join(await fresh(), "q.pdf");
    try {
      await qpdf2.decrypt({ input: damagedBig, output: out });
      qpdf2Outcome = "resolved";
    } catch {
      qpdf2Outcome = "rejected (qpdf exit 3 = warnings)";
    }
    return out;
  });
  add(
    "repair 429 p (damaged)",
    "node-qpdf2 (decrypt = rewrite)",
    qpdf2Repair,
    `${qpdf2Outcome}; output ${existsSync(qpdf2Repair.output) ? `written, qpdf --check ${qpdfCheckPasses(qpdf2Repair.output) ? "passes" : "FAILS"}` : "none"}`,
  );

  console.log(`\n### Speed: in-process median of ${runs} runs after one warm-up (ms)\n`);
  console.log("| Operation | Engine | Median ms | vs @octavo/engines | Note |\n|---|---|---|---|---|");
  const baseline = new Map();
  for (const row of rows) if (row.engine.startsWith("@octavo")) baseline.set(row.operation, row.ms);
  for (const row of rows) {
    const base = baseline.get(row.operation);
    const ratio = row.ms === undefined || base === undefined ? "–" : `×${(row.ms / base).toFixed(2)}`;
    console.log(
      `| ${row.operation} | ${row.engine} | ${row.ms === undefined ? "–" : row.ms.toFixed(0)} | ${ratio} | ${row.note} |`,
    );
  }
}

// ---------- robustness over broken/ and encrypted/ ----------

async function manifest() {
  const text = await readFile(join(corpusDir, "MANIFEST.tsv"), "utf8");
  const entries = new Map();
  for (const line of text.split("\n").slice(1)) {
    const [path, , , , , , notes = ""] = line.split("\t");
    if (!path) continue;
    let password = /user_password=([^;]*)/.exec(notes)?.[1]?.trim();
    const json = password && /\(json ("[^"]*")\)/.exec(password)?.[1];
    if (json) password = JSON.parse(json);
    if (password?.startsWith("''")) password = "";
    entries.set(path, { password });
  }
  return entries;
}

/** Files every engine should refuse: not PDFs, an unknown password, a rights-management wrapper. */
const mustReject = new Set([
  "broken/ocrmypdf_invalid.pdf",
  "broken/tika_testWORD_truncated.docx",
  "broken/paperless_multi-part-broken.odt",
  "encrypted/cabinet_encryption_openpassword.pdf",
  "encrypted/tika_testMicrosoftIRMServices.pdf",
]);

/** One short phrase per failure, so the per-file table stays readable. */
function errorSummary(error) {
  const text = String(error?.code ?? error?.message ?? error);
  if (/succeeded with warnings/.test(text)) return "rejected qpdf exit 3 (success with warnings)";
  if (/is encrypted/.test(text)) return "cannot decrypt";
  const qpdfLine = text.split("\n").find((line) => line.startsWith("qpdf: "));
  return (qpdfLine ?? text.split("\n")[0]).replace(/\/\S+\//g, "").slice(0, 70);
}

async function robustness() {
  const entries = await manifest();
  const files = [];
  for (const folder of ["broken", "encrypted"]) {
    for (const file of (await readdir(join(corpusDir, folder))).sort()) files.push(`${folder}/${file}`);
  }
  const attempts = {
    "@octavo/engines": async (relative, password, dir) => {
      const ctx = { workDir: dir };
      const result = relative.startsWith("encrypted/")
        ? await engines.unlock(input(corpus(relative)), { password: password ?? "" }, ctx)
        : await engines.repair(input(corpus(relative)), {}, ctx);
      return { path: result.outputs[0].path, engine: result.engine };
    },
    "pdf-lib": async (relative, _password, dir) => ({
      path: await pdfLibOps.rewrite(corpus(relative), join(dir, "out.pdf")),
    }),
    "node-qpdf2": async (relative, password, dir) => {
      const out = join(dir, "out.pdf");
      await qpdf2.decrypt({ input: corpus(relative), output: out, ...(password ? { password } : {}) });
      return { path: out };
    },
  };
  const results = new Map();
  for (const relative of files) {
    const password = entries.get(relative)?.password;
    const perEngine = {};
    for (const [engine, attempt] of Object.entries(attempts)) {
      const dir = await fresh();
      const started = performance.now();
      try {
        const made = await attempt(relative, password, dir);
        const view = await mupdfView(made.path);
        perEngine[engine] = {
          ms: performance.now() - started,
          produced: true,
          engine: made.engine,
          mupdf: view,
          poppler: popplerPages(made.path),
          check: qpdfCheckPasses(made.path),
          text: textChars(made.path),
        };
      } catch (error) {
        perEngine[engine] = {
          ms: performance.now() - started,
          produced: false,
          error: errorSummary(error),
        };
      }
    }
    results.set(relative, perEngine);
  }

  // An output is ok when MuPDF and poppler open it unencrypted with the best page count any engine
  // reached on that file, and it keeps at least 90 % of the best text.
  const summary = {};
  for (const engine of Object.keys(attempts))
    summary[engine] = { broken: 0, encrypted: 0, rejected: 0, checkPasses: 0, produced: 0 };
  const perFile = [];
  for (const [relative, perEngine] of results) {
    const opened = Object.values(perEngine).filter(
      (r) => r.produced && r.mupdf && r.poppler === r.mupdf.pages,
    );
    const bestPages = Math.max(0, ...opened.map((r) => r.mupdf.pages));
    const bestText = Math.max(0, ...opened.filter((r) => r.mupdf.pages === bestPages).map((r) => r.text));
    const verdicts = {};
    for (const [engine, r] of Object.entries(perEngine)) {
      const folder = relative.split("/")[0];
      let verdict;
      if (mustReject.has(relative)) {
        verdict = r.produced ? "accepted (should refuse)" : "refused ✓";
        if (!r.produced) summary[engine].rejected += 1;
      } else if (!r.produced) {
        verdict = `failed: ${r.error}`;
      } else {
        const ok =
          r.mupdf &&
          r.poppler === r.mupdf.pages &&
          r.mupdf.pages === bestPages &&
          bestPages > 0 &&
          r.text >= bestText * 0.9;
        verdict = ok
          ? "ok"
          : `bad (${r.mupdf ? `${r.mupdf.pages} p` : "MuPDF cannot open"}, poppler ${r.poppler ?? "cannot open"}, ${r.text}/${bestText} chars)`;
        if (ok) summary[engine][folder] += 1;
        if (r.check) summary[engine].checkPasses += 1;
        summary[engine].produced += 1;
      }
      verdicts[engine] = verdict;
    }
    perFile.push({ relative, bestPages, verdicts, octavo: perEngine["@octavo/engines"] });
  }

  const brokenCount = files.filter((f) => f.startsWith("broken/") && !mustReject.has(f)).length;
  const encryptedCount = files.filter((f) => f.startsWith("encrypted/") && !mustReject.has(f)).length;
  console.log(
    `\n### Robustness: ${files.length} files of broken/ and encrypted/ (${mustReject.size} must be refused)\n`,
  );
  console.log(
    `| Engine | broken ok / ${brokenCount} | encrypted ok / ${encryptedCount} | refused / ${mustReject.size} | outputs passing qpdf --check |\n|---|---|---|---|---|`,
  );
  for (const [engine, s] of Object.entries(summary)) {
    console.log(
      `| ${engine} | ${s.broken} | ${s.encrypted} | ${s.rejected} | ${s.checkPasses} / ${s.produced} |`,
    );
  }
  console.log(
    "\nnode-qpdf2 rejects every run where qpdf exits 3 (success with warnings); that is also why it 'refuses' the IRM wrapper.",
  );
  console.log("\n### Per file (octavo: repair for broken/, unlock for encrypted/)\n");
  console.log("| File | octavo engine | octavo | ms | pdf-lib | node-qpdf2 |\n|---|---|---|---|---|---|");
  for (const row of perFile) {
    const o = row.octavo;
    const engineName = o.produced ? o.engine : "–";
    const octavoVerdict = o.produced
      ? `${row.verdicts["@octavo/engines"]}, ${o.mupdf?.pages ?? "?"} p, check ${o.check ? "passes" : "FAILS"}`
      : row.verdicts["@octavo/engines"];
    console.log(
      `| ${row.relative} | ${engineName} | ${octavoVerdict} | ${o.ms.toFixed(0)} | ${row.verdicts["pdf-lib"]} | ${row.verdicts["node-qpdf2"]} |`,
    );
  }
}

try {
  console.log(`# compare-structural — ${new Date().toISOString()}, Node ${process.version}, ${runs} runs`);
  if (only !== "robustness") await speed();
  if (only !== "speed") await robustness();
} finally {
  await rm(workRoot, { recursive: true, force: true });
}
