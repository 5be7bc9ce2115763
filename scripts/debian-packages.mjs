// Debian packages the engines and the single-machine defaults need. `octavo doctor` reports the
// programs they provide; scripts/setup.mjs installs whichever are missing.
export const debianPackages = [
  "redis-server", // the queue's Redis, supervised by octavo when OCTAVO_REDIS_URL is unset
  "qpdf", // split, rotate, protect, unlock, first repair pass, structural checks
  "ghostscript", // last repair pass
  "poppler-utils", // independent second parser used to validate outputs (pdfinfo, pdftotext)
  "util-linux", // prlimit and unshare: limits and isolation of engine processes
  "openssl", // reads the signer's PKCS#12 file in a process of its own (@octavo/sign)
  "ca-certificates", // the roots signature verification trusts by default
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
  // OCR: OCRmyPDF drives native tesseract; language data for the 17 codes of the spec, and osd for
  // page orientation. Nothing is downloaded at run time.
  "ocrmypdf",
  "tesseract-ocr",
  "tesseract-ocr-osd",
  "tesseract-ocr-eng",
  "tesseract-ocr-spa",
  "tesseract-ocr-por",
  "tesseract-ocr-fra",
  "tesseract-ocr-deu",
  "tesseract-ocr-ita",
  "tesseract-ocr-nld",
  "tesseract-ocr-ind",
  "tesseract-ocr-swa",
  "tesseract-ocr-hin",
  "tesseract-ocr-ara",
  "tesseract-ocr-rus",
  "tesseract-ocr-tur",
  "tesseract-ocr-vie",
  "tesseract-ocr-chi-sim",
  "tesseract-ocr-jpn",
  "tesseract-ocr-kor",
  "icc-profiles-free", // the sRGB output intent of PDF/A files
  // Tests only: Apache PDFBox Preflight validates PDF/A-1b outputs (on the machine's OpenJDK).
  "libpdfbox2-java",
  "libactivation-java",
  "libjaxb-api-java",
  "default-jre-headless", // tests only: runs PDFBox Preflight
  "catdoc", // tests only: reads legacy .doc text independently of LibreOffice, to measure recall
  // Tests only: `docker-compose config` checks the root docker-compose.yml (infra/test); it needs no
  // Docker daemon.
  "docker-compose",
  // Tests only: poppler's pdfsig signs with keys in an NSS database that certutil and pk12util make, a signer
  // we did not write for @octavo/sign's verification to read.
  "libnss3-tools",
  // Benches only: pandoc reads Word documents for bench/markdown/structure.mjs (issue 34's structure truth).
  "pandoc",
  // Tests only: `promtool check metrics` lints every process's /metrics exposition.
  "prometheus",
  // Tests only: an independent reader of the metadata operation's Info and XMP.
  "libimage-exiftool-perl",
  // Bench only: bench/images/image-to-pdf.mjs compares with img2pdf.
  "img2pdf",
];
