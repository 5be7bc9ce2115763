// The job `npm run test:fleet` runs of each operation of the catalogue (infra/test checks that every
// operation has one, without Docker).
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CORPUS = join(ROOT, "..", "shared", "corpus");

export const sample = join(ROOT, "examples", "sample-a.pdf");
export const corpus = (path) => join(CORPUS, path);
const WEBHOOK_URL = "http://webhook-receiver:8099/hook";
/**
 * The job of each operation that needs more than the sample PDF without options: its inputs (a path, or
 * `{ path, field }` for a named upload such as Sign PDF's certificate), options and other form fields.
 */
export const operationJobs = {
  merge: [[sample, join(ROOT, "examples", "sample-b.pdf")], undefined, { webhook_url: WEBHOOK_URL }],
  split: [[corpus("general/samplefiles_GeoTopo-komprimiert.pdf")], { ranges: "1-2,3" }],
  rotate: [[sample], { angle: 90 }],
  compress: [[corpus("general/samplefiles_GeoTopo-komprimiert.pdf")]],
  repair: [[corpus("broken/govdocs_error_set_2_020747.pdf")]],
  ocr: [[corpus("scanned/tesseract_phototest.pdf")], { languages: ["eng"] }],
  protect: [[sample], { userPassword: "fleet-secret" }],
  unlock: [[corpus("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf")], { password: "view" }],
  "word-to-pdf": [[corpus("office/docling_docx_rich_tables_01.docx")]],
  "powerpoint-to-pdf": [[corpus("office/pypptx_cht-chart-type.pptx")]],
  "excel-to-pdf": [[corpus("office/docling_xlsx_01.xlsx")]],
  "html-to-pdf": [[corpus("html/gotenberg_wide-table.html")]],
  "pdf-to-word": [[sample]],
  "pdf-to-powerpoint": [[sample]],
  "pdf-to-excel": [[corpus("tables/icdar2013_us-001.pdf")]],
  "pdf-to-pdfa": [[sample], { level: "2" }],
  "pdf-to-image": [[sample], { format: "png", pages: "1" }],
  "image-to-pdf": [[join(ROOT, "packages/images/test/fixtures/images/datagov-rgb.jpg")]],
  watermark: [[sample], { text: "FLEET" }],
  "page-numbers": [[sample]],
  flatten: [[corpus("general/samplefiles_pdflatex-forms.pdf")]],
  metadata: [[sample], { title: "Fleet" }],
  "forms-read": [[corpus("general/samplefiles_libreoffice-form.pdf")]],
  "forms-fill": [[corpus("general/samplefiles_libreoffice-form.pdf")], { values: { "First Name": "Fleet" } }],
  redact: [[sample], { text: ["test document"], presets: ["email"] }],
  generate: [[corpus("office/docling_docx_rich_tables_01.docx")], { data: {} }],
  // examples/README.md: a signer made for the examples, password "example".
  sign: [
    [sample, { path: join(ROOT, "examples", "sample-signer.p12"), field: "certificate" }],
    { certificatePassword: "example" },
  ],
};

/**
 * An operation's job: its row of operationJobs, else the sample PDF without options for an operation
 * that takes one PDF and requires no option and no upload (a new operation of that kind needs no row),
 * else undefined.
 */
export function jobOf(spec) {
  const listed = operationJobs[spec.id];
  if (listed !== undefined) return listed;
  const takesOnePdf = spec.files.min <= 1 && spec.files.extensions.includes(".pdf");
  const requires = spec.options.required ?? [];
  const needsUpload = Object.values(spec.files.named ?? {}).some((upload) => upload.required);
  return takesOnePdf && requires.length === 0 && !needsUpload ? [[sample]] : undefined;
}
