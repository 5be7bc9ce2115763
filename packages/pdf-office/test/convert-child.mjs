// Runs one PDF → Office conversion and prints its result or failure as JSON, with the time it took: the
// corpus tests convert each file in a fresh Node process, as the worker's per-job sandbox does, because a
// long run of documents in one process can corrupt MuPDF.js's WASM heap (see docs/engines.md).
//
//   node convert-child.mjs word|powerpoint|excel <path> <name> <workDir> [options JSON]
import { pdfToExcel, pdfToPowerPoint, pdfToWord } from "../dist/index.js";

const converters = { word: pdfToWord, powerpoint: pdfToPowerPoint, excel: pdfToExcel };
const [kind, path, name, workDir, options = "{}"] = process.argv.slice(2);
const started = performance.now();
try {
  const convert = converters[kind];
  if (convert === undefined) throw new Error(`unknown conversion ${kind}`);
  const result = await convert({ path, name }, JSON.parse(options), { workDir });
  process.stdout.write(JSON.stringify({ result, seconds: (performance.now() - started) / 1000 }));
} catch (error) {
  const failure = { code: error.code ?? "internal", message: String(error.message), detail: error.detail };
  process.stdout.write(JSON.stringify({ failure, seconds: (performance.now() - started) / 1000 }));
}
