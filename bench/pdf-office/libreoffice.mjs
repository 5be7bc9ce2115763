// LibreOffice's own PDF import as the baseline for PDF → DOCX / PPTX, one cold `soffice --headless
// --convert-to` process per file (as a user would run it), with a private profile and a per-file timeout:
//
//   import { runLibreOffice } from "./libreoffice.mjs";
//   const r = await runLibreOffice("in.pdf", "docx", "/tmp/out"); // { ok, output, seconds, error, timedOut }
//
//   docx: soffice --infilter=writer_pdf_import  --convert-to docx  (Writer, "MS Word 2007 XML")
//   pptx: soffice --infilter=impress_pdf_import --convert-to pptx  (Impress, "Impress MS PowerPoint 2007 XML")
//   xlsx: not available. LibreOffice 7.4 registers writer_, impress_ and draw_pdf_import only (pdfimport.xcd);
//         calc_pdf_addstream_import reads the ODF stream embedded in "hybrid" PDFs, not the page content.
//         `--infilter=calc_pdf_import --convert-to xlsx` ends with "no export filter … found", because the
//         unknown filter name falls back to Draw, which cannot write XLSX.
//
// soffice exits 0 even when it could not load or convert a file, so success means: an output file exists
// and is not empty.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInGroup } from "./process.mjs";

export const LIBREOFFICE_FILTERS = {
  docx: { infilter: "writer_pdf_import", convertTo: "docx:MS Word 2007 XML" },
  pptx: { infilter: "impress_pdf_import", convertTo: "pptx:Impress MS PowerPoint 2007 XML" },
  xlsx: null,
};

let defaultProfile = null;

/** A fresh LibreOffice user profile directory (removed at process exit unless `keep`). */
export function createProfile({ keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "octavo-lo-profile-"));
  if (!keep) process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function profileDir(options) {
  if (options.profileDir) return options.profileDir;
  defaultProfile ??= createProfile();
  return defaultProfile;
}

/** The LibreOffice version string, e.g. "LibreOffice 7.4.7.2 40(Build:2)". */
export async function libreOfficeVersion() {
  const { stdout } = await runInGroup("soffice", ["--version"], 30_000);
  return stdout.trim();
}

/**
 * Converts `pdf` with LibreOffice's PDF import to `kind` ("docx" | "pptx"; "xlsx" reports unsupported)
 * into `outDir` (created if needed; the output is outDir/<pdf basename>.<kind>). Options: timeoutMs
 * (default 120 000), profileDir (default: one fresh profile per process, shared by the calls).
 * Resolves to { ok, output, seconds, error, timedOut, supported }; never rejects for conversion failures.
 */
export async function runLibreOffice(pdf, kind, outDir, options = {}) {
  const filter = LIBREOFFICE_FILTERS[kind];
  if (filter === undefined) throw new Error(`unknown kind ${kind}`);
  if (filter === null) {
    return {
      ok: false,
      supported: false,
      output: null,
      seconds: null,
      timedOut: false,
      error: "LibreOffice has no PDF import for Calc (no calc_pdf_import filter)",
    };
  }
  const timeoutMs = options.timeoutMs ?? 120_000;
  mkdirSync(outDir, { recursive: true });
  const output = join(outDir, `${basename(pdf, extname(pdf))}.${kind}`);
  rmSync(output, { force: true });
  const args = [
    `-env:UserInstallation=${pathToFileURL(profileDir(options)).href}`,
    "--headless",
    "--norestore",
    "--nolockcheck",
    `--infilter=${filter.infilter}`,
    "--convert-to",
    filter.convertTo,
    "--outdir",
    outDir,
    pdf,
  ];
  const started = performance.now();
  const result = await runInGroup("soffice", args, timeoutMs);
  const seconds = (performance.now() - started) / 1000;
  // No file is how LibreOffice reports most failures; the error below says why from its output.
  const size = existsSync(output) ? statSync(output).size : 0;
  const ok = !result.timedOut && size > 0;
  let error = null;
  if (result.timedOut) error = `timeout after ${timeoutMs / 1000} s`;
  else if (!ok) {
    const message = `${result.stderr}\n${result.stdout}`
      .split("\n")
      .filter((line) => line.trim() && !line.includes("javaldx"))
      .join(" ")
      .trim();
    error = `no output (exit ${result.code})${message ? `: ${message.slice(0, 200)}` : ""}`;
  }
  return { ok, supported: true, output: ok ? output : null, seconds, error, timedOut: result.timedOut };
}

/**
 * One untimed conversion, so that the first timed file is not charged for setting up the fresh profile.
 */
export async function warmUpLibreOffice(pdf, options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "octavo-lo-warmup-"));
  try {
    return await runLibreOffice(pdf, "docx", dir, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
