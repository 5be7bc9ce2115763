#!/usr/bin/env node
// PDF/A validity: every corpus file through @octavo/pdfa's toPdfA at levels 1, 2 and 3. Per level: how many
// inputs come out as a file that passes our own validation (toPdfA only returns such files; this re-checks
// the delivered file with validatePdfA), how many level-1 outputs pass Apache PDFBox Preflight 2.0.27
// (PDF/A-1b only), how many level-2/-3 outputs pdffonts (every font emb=yes) and pdfinfo -meta (pdfaid:part
// and conformance B) agree with, and the median seconds per file.
//
//   pnpm --filter @octavo/pdfa build && node bench/pdfa/validity.mjs [--levels 1,2,3] [--files general/a.pdf,...]
//     [--office-dir DIR] [--json results.json]
//
// Inputs: corpus/general/*.pdf, corpus/scanned/*.pdf, and the PDFs LibreOffice makes of corpus/office files
// (converted here with `soffice --headless --convert-to pdf` unless --office-dir names a directory of such
// PDFs already made). Password-protected office files are skipped.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpusDir = join(repoRoot, "..", "shared", "corpus");
const packageDir = join(repoRoot, "packages", "pdfa");
const { toPdfA, validatePdfA } = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);

const { values } = parseArgs({
  options: {
    levels: { type: "string", default: "1,2,3" },
    files: { type: "string" },
    "office-dir": { type: "string" },
    json: { type: "string" },
  },
});
const levels = values.levels.split(",");
const scratch = await mkdtemp(join(tmpdir(), "octavo-pdfa-bench-"));

const preflightClasspath = [
  "preflight.jar",
  "pdfbox2.jar",
  "fontbox2.jar",
  "xmpbox.jar",
  "commons-logging.jar",
  "javax.activation.jar",
  "jaxb-api.jar",
]
  .map((jar) => join("/usr/share/java", jar))
  .join(":");

/** Office files LibreOffice can open without a password. */
async function officeInputs() {
  const names = await readdir(join(corpusDir, "office"));
  return names.filter((name) => !name.endsWith(".pdf") && !/password|protected|Encrypted/i.test(name)).sort();
}

async function officePdfs() {
  if (values["office-dir"]) {
    const dir = values["office-dir"];
    return (await readdir(dir)).filter((name) => name.endsWith(".pdf")).map((name) => join(dir, name));
  }
  const dir = join(scratch, "office");
  await mkdir(dir, { recursive: true });
  const outputs = [];
  // One soffice per extension group keeps same-stem files (x.doc, x.docx) apart.
  for (const name of await officeInputs()) {
    const target = join(dir, extname(name).slice(1));
    await mkdir(target, { recursive: true });
    spawnSync(
      "soffice",
      [
        "--headless",
        `-env:UserInstallation=file://${join(scratch, "lo-profile")}`,
        "--convert-to",
        "pdf",
        "--outdir",
        target,
        join(corpusDir, "office", name),
      ],
      { timeout: 180_000, stdio: "ignore" },
    );
    const made = join(target, `${basename(name, extname(name))}.pdf`);
    const renamed = join(dir, `office_${basename(name).replaceAll(".", "_")}.pdf`);
    try {
      await copyFile(made, renamed);
      outputs.push(renamed);
    } catch {
      console.error(`soffice made nothing of office/${name}`);
    }
  }
  return outputs;
}

async function inputs() {
  if (values.files)
    return values.files.split(",").map((file) => (file.startsWith("/") ? file : join(corpusDir, file)));
  const list = [];
  for (const folder of ["general", "scanned"]) {
    const names = (await readdir(join(corpusDir, folder))).filter((name) => name.endsWith(".pdf")).sort();
    list.push(...names.map((name) => join(corpusDir, folder, name)));
  }
  return [...list, ...(await officePdfs())];
}

function label(path) {
  return path.startsWith(corpusDir) ? path.slice(corpusDir.length + 1) : basename(path);
}

/**
 * PDFBox Preflight on every PDF of `dir` in one JVM ("xml group" writes one report next to the list
 * file): file name → error lines (empty when valid).
 */
async function preflight(dir) {
  const pdfs = (await readdir(dir)).filter((name) => name.endsWith(".pdf")).map((name) => join(dir, name));
  const list = join(dir, "list.txt");
  await writeFile(list, `${pdfs.join("\n")}\n`);
  spawnSync(
    "java",
    ["-cp", preflightClasspath, "org.apache.pdfbox.preflight.Validator_A1b", "xml", "group", list],
    {
      stdio: "ignore",
      timeout: 900_000,
    },
  );
  const verdicts = new Map();
  const text = await readFile(`${list}.preflight.xml`, "utf8").catch(() => "");
  for (const match of text.matchAll(/<preflight name="([^"]+)">([\s\S]*?)<\/preflight>/g)) {
    const body = match[2] ?? "";
    const valid = /<isValid type="PDF\/A1-b">true<\/isValid>/.test(body);
    const errors = [...body.matchAll(/<code>([^<]*)<\/code>\s*<details>([^<]*)<\/details>/g)].map(
      (error) => `${error[1]} ${error[2]}`,
    );
    verdicts.set(basename(match[1] ?? ""), valid ? [] : errors.length > 0 ? errors : ["invalid"]);
  }
  return verdicts;
}

/** pdffonts: every font embedded; pdfinfo -meta: pdfaid part N, conformance B. */
function popplerAgrees(path, level) {
  const fonts = execFileSync("pdffonts", [path], { encoding: "utf8" }).split("\n").slice(2).filter(Boolean);
  // Columns: name type encoding emb sub uni object ID; "emb" is the fourth from the end.
  const unembedded = fonts.filter((line) => line.trim().split(/\s+/).at(-5) !== "yes");
  const meta = execFileSync("pdfinfo", ["-meta", path], { encoding: "utf8" });
  const part = /pdfaid:part(?:>|=["'])\s*(\d)/.exec(meta)?.[1];
  const conformance = /pdfaid:conformance(?:>|=["'])\s*([A-Za-z])/.exec(meta)?.[1];
  return {
    fontsEmbedded: unembedded.length === 0,
    part,
    conformance,
    agrees: unembedded.length === 0 && part === level && conformance?.toUpperCase() === "B",
  };
}

function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const files = await inputs();
console.log(`${files.length} input files, levels ${levels.join(", ")}`);
const results = [];
for (const level of levels) {
  const keepDir = join(scratch, `level-${level}`);
  await mkdir(keepDir, { recursive: true });
  for (const [index, file] of files.entries()) {
    const workDir = await mkdtemp(join(scratch, "job-"));
    const started = performance.now();
    const row = { level, file: label(file), ok: false, seconds: 0, warnings: [], error: undefined };
    try {
      const result = await toPdfA({ path: file, name: basename(file) }, { level }, { workDir });
      row.seconds = (performance.now() - started) / 1000;
      const output = result.outputs[0].path;
      const check = await validatePdfA(output, level);
      row.ok = check.valid;
      row.problems = check.problems;
      row.engine = result.engine;
      row.warnings = result.warnings;
      const kept = join(keepDir, `${String(index).padStart(3, "0")}.pdf`);
      await copyFile(output, kept);
      row.kept = kept;
      if (level !== "1") row.poppler = popplerAgrees(kept, level);
    } catch (error) {
      row.seconds = (performance.now() - started) / 1000;
      row.error = `${error.code ?? error.name}: ${error.message}`;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    results.push(row);
    console.log(
      `L${level} ${row.ok ? "valid  " : "INVALID"} ${row.seconds.toFixed(2).padStart(6)} s ${row.file}${row.error ? ` — ${row.error}` : ""}${row.warnings.length > 0 ? ` [${row.warnings.length} warning(s)]` : ""}`,
    );
  }
  if (level === "1") {
    const verdicts = await preflight(keepDir);
    for (const row of results.filter((r) => r.level === "1" && r.kept)) {
      row.preflight = verdicts.get(basename(row.kept)) ?? ["no verdict"];
      if (row.preflight.length > 0)
        console.log(`Preflight fails ${row.file}: ${row.preflight.slice(0, 3).join(" | ")}`);
    }
  }
}

console.log("\nlevel  valid/total  preflight  poppler-agrees  median s/file  max s/file");
for (const level of levels) {
  const rows = results.filter((row) => row.level === level);
  const valid = rows.filter((row) => row.ok).length;
  const preflightPass = rows.filter((row) => row.preflight?.length === 0).length;
  const poppler = rows.filter((row) => row.poppler?.agrees).length;
  const seconds = rows.map((row) => row.seconds);
  console.log(
    `${level.padEnd(6)} ${`${valid}/${rows.length}`.padEnd(12)} ${level === "1" ? `${preflightPass}/${valid}`.padEnd(10) : "n/a".padEnd(10)} ${level === "1" ? "n/a".padEnd(15) : `${poppler}/${valid}`.padEnd(15)} ${median(seconds).toFixed(2).padEnd(14)} ${Math.max(...seconds).toFixed(2)}`,
  );
}
if (values.json) {
  await writeFile(values.json, JSON.stringify(results, null, 2));
}
await rm(scratch, { recursive: true, force: true });
