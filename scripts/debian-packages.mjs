// Debian packages the engines and the single-machine defaults need. `octavo doctor` reports the
// programs they provide; scripts/setup.mjs installs whichever are missing.
export const debianPackages = [
  "redis-server", // the queue's Redis, supervised by octavo when OCTAVO_REDIS_URL is unset
  "qpdf", // split, rotate, protect, unlock, first repair pass, structural checks
  "ghostscript", // last repair pass
  "poppler-utils", // independent second parser used to validate outputs (pdfinfo, pdftotext)
  "util-linux", // prlimit and unshare: limits and isolation of engine processes
  // Office to PDF: warm LibreOffice listeners driven through UNO from Python.
  "libreoffice-core",
  "libreoffice-writer",
  "libreoffice-calc",
  "libreoffice-impress",
  "python3-uno",
  // Fonts, so Office documents keep their line breaks (metric-compatible families) and no glyph
  // turns into a box (wide coverage, CJK and Arabic included).
  "fonts-crosextra-carlito", // Calibri metrics
  "fonts-crosextra-caladea", // Cambria metrics
  "fonts-liberation2", // Arial, Times New Roman, Courier New metrics
  "fonts-dejavu-core",
  "fonts-dejavu-extra",
  "fonts-noto-core", // Arabic, Hebrew, Devanagari and most other scripts
  "fonts-noto-cjk",
  "chromium", // HTML and URL to PDF, driven by puppeteer-core
  "catdoc", // tests only: reads legacy .doc text independently of LibreOffice, to measure recall
];
