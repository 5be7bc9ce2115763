# SPDX-License-Identifier: AGPL-3.0-or-later
"""OCRmyPDF plugin: reports progress to the file named by OCTAVO_OCR_PROGRESS, and keeps rewritten pages lossless.

OCRmyPDF drives a tqdm-like progress bar from its main process (pages finished, grafting, ...). This class
is that bar, but instead of drawing it appends one line per update, "<desc>\t<done>\t<total>", so the Node
wrapper can follow the job page by page while the process runs. Loaded with `--plugin <this file>`; plugins
given on the command line are asked before the built-in one, which keeps stderr free of bar drawings.
"""

import os

from ocrmypdf import hookimpl

try:
    # When a page is rasterised again (--deskew, --rotate-pages, --force-ocr) and all its images were JPEG,
    # OCRmyPDF 14 saves the new page image as a JPEG at Pillow's default quality 75: a second lossy generation
    # (measured: scanned/ocrmypdf_c02-22.pdf's JPEG re-encoded, its ICC profile dropped). Keeping the PNG it
    # made instead stores the page losslessly (Flate). _sync imported the function by name, so it is patched there.
    from ocrmypdf import _sync as _ocrmypdf_sync

    if hasattr(_ocrmypdf_sync, "should_visible_page_image_use_jpg"):
        _ocrmypdf_sync.should_visible_page_image_use_jpg = lambda pageinfo: False
except ImportError:  # another OCRmyPDF layout: the image test in behaviour.test.ts notices
    pass


class OctavoProgress:
    def __init__(self, *args, **kwargs):
        self._path = os.environ.get("OCTAVO_OCR_PROGRESS")
        self._desc = str(kwargs.get("desc") or "").replace("\t", " ").replace("\n", " ")
        total = kwargs.get("total")
        self._total = float(total) if isinstance(total, (int, float)) else 0.0
        self._done = 0.0

    def __enter__(self):
        self._write()
        return self

    def __exit__(self, *exc_info):
        return False

    def update(self, n=1, *args, **kwargs):
        self._done += n if isinstance(n, (int, float)) else 1
        self._write()

    def _write(self):
        if not self._path:
            return
        try:
            with open(self._path, "a", encoding="utf-8") as handle:
                handle.write(f"{self._desc}\t{self._done:g}\t{self._total:g}\n")
        except OSError:
            # Progress is a courtesy; never fail the OCR job because the file cannot be written.
            pass


@hookimpl
def get_progressbar_class():
    return OctavoProgress
