// Debian packages the engines and the single-machine defaults need. `octavo doctor` reports the
// programs they provide; scripts/setup.mjs installs whichever are missing.
export const debianPackages = [
  "redis-server", // the queue's Redis, supervised by octavo when OCTAVO_REDIS_URL is unset
  "qpdf", // split, rotate, protect, unlock, first repair pass, structural checks
  "ghostscript", // last repair pass
  "poppler-utils", // independent second parser used to validate outputs (pdfinfo, pdftotext)
  "util-linux", // prlimit: memory and CPU limits on every engine process
];
