#!/usr/bin/python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""One warm LibreOffice, driven through UNO.

Started by @octavo/office (src/instance.ts) as `python3 convert.py --soffice … --profile-url … --pipe …`,
usually inside a network namespace. It starts soffice listening on a named pipe, connects, and then
answers one JSON request line on stdin with one JSON line on stdout:

  → {"id": 1, "input": "file:///…/in.docx", "output": "file:///…/out.pdf", "family": "word"}
  → {"id": 2, …, "family": "excel", "filter": "Text - txt - csv (StarCalc)", "filterOptions": "59,34,76,1",
     "csv": true}
  ← {"id": 1, "ok": true, "repaired": false, "asked": "", "ms": 85}
  ← {"id": 2, "ok": false, "error": "password" | "unreadable" | "wrong_kind" | "export_failed" | "crashed",
     "message": "…", "ms": 12}

When soffice exits, the helper reports {"type": "fatal", …} and exits; when stdin closes, it kills its
whole process group (itself, oosplash and soffice.bin), so a dead parent never leaves LibreOffice behind.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

# The protocol runs on a private copy of stdout: pyuno and LibreOffice may print to fd 1, which would
# corrupt the JSON lines, so fd 1 is pointed at stderr (which the parent keeps for diagnostics).
_proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
os.dup2(2, 1)
_send_lock = threading.Lock()
_stopping = False


def send(message):
    with _send_lock:
        _proto.write(json.dumps(message, ensure_ascii=True) + "\n")
        _proto.flush()


def fatal(message, code=3):
    # os._exit, never sys.exit: python3-uno segfaults in its interpreter-exit clean-up (measured, exit 139).
    try:
        send({"type": "fatal", "message": message})
    finally:
        os._exit(code)


try:
    import uno
    import unohelper
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException
    from com.sun.star.task import XInteractionHandler
except ImportError as error:
    fatal("python3-uno is not available: %s" % error, 4)

# LibreOffice 7.4's pyuno cannot turn a UNO exception into a Python one on Python 3.11: BaseException's
# constructor sets `args`, which uno.py forwards to the UNO struct, which has no such field. Interaction
# requests (a password prompt is one) are exceptions, so without this every request raises SystemError.
_struct_setattr = uno._uno_struct__setattr__


def _exception_safe_setattr(self, name, value):
    if name == "args":
        return object.__setattr__(self, name, value)
    return _struct_setattr(self, name, value)


uno._uno_struct__setattr__ = _exception_safe_setattr


def prop(name, value):
    item = PropertyValue()
    item.Name = name
    item.Value = value
    return item


def arguments(argv):
    parsed = {}
    for index in range(1, len(argv) - 1, 2):
        parsed[argv[index].lstrip("-")] = argv[index + 1]
    for required in ("soffice", "profile-url", "pipe"):
        if required not in parsed:
            fatal("missing argument --%s" % required, 2)
    return parsed


def start_soffice(options):
    command = [
        options["soffice"],
        "-env:UserInstallation=" + options["profile-url"],
        "--headless",
        "--invisible",
        "--nocrashreport",
        "--nodefault",
        "--nofirststartwizard",
        "--nologo",
        "--norestore",
        "--nolockcheck",
        # A named pipe (a UNIX socket), not TCP: it works inside a network namespace with no interfaces
        # up, and no port is ever open to the machine (the UNO bridge runs anything its peer asks).
        "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % options["pipe"],
    ]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr)


def watch(process):
    status = process.wait()
    if not _stopping:
        fatal("LibreOffice exited with status %s" % status)


def connect(options, process):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    url = "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % options["pipe"]
    deadline = time.monotonic() + float(options.get("start-timeout", "60"))
    while True:
        try:
            return resolver.resolve(url)
        except NoConnectException:
            if process.poll() is not None:
                fatal("LibreOffice exited during start-up with status %s" % process.returncode)
            if time.monotonic() > deadline:
                fatal("LibreOffice did not accept a connection in time")
            time.sleep(0.05)


def security_settings(context):
    """The profile's macro settings as LibreOffice sees them, so the parent can refuse a weak profile."""
    provider = context.ServiceManager.createInstanceWithContext(
        "com.sun.star.configuration.ConfigurationProvider", context
    )
    node = provider.createInstanceWithArguments(
        "com.sun.star.configuration.ConfigurationAccess",
        (prop("nodepath", "/org.openoffice.Office.Common/Security/Scripting"),),
    )
    return {
        "macroSecurityLevel": node.getByName("MacroSecurityLevel"),
        "disableMacrosExecution": node.getByName("DisableMacrosExecution"),
    }


def type_name(value):
    return getattr(value, "typeName", type(value).__name__)


def supports(continuation, interface):
    try:
        return continuation.queryInterface(uno.getTypeByName(interface)) is not None
    except Exception:  # an object without that interface may also raise: then it does not support it
        return False


class Interactions(unohelper.Base, XInteractionHandler):
    """Answers every question LibreOffice would ask a person, without ever waiting for one.

    A password prompt is refused (and remembered, to give the client a clear message); an offer to repair a
    damaged package is accepted, so whatever LibreOffice can recover is converted; anything else is aborted.
    """

    def __init__(self):
        self.password = False
        self.repaired = False
        self.seen = []

    def handle(self, request):
        question = request.getRequest()
        name = type_name(question)
        self.seen.append(name)
        continuations = request.getContinuations()
        if "PasswordRequest" in name:
            self.password = True
        elif name.endswith("BrokenPackageRequest"):
            for continuation in continuations:
                if supports(continuation, "com.sun.star.task.XInteractionApprove"):
                    self.repaired = True
                    continuation.select()
                    return
        for wanted in ("com.sun.star.task.XInteractionAbort", "com.sun.star.task.XInteractionDisapprove"):
            for continuation in continuations:
                if supports(continuation, wanted):
                    continuation.select()
                    return


EXPORT_FILTERS = {
    "word": "writer_pdf_Export",
    "excel": "calc_pdf_Export",
    "powerpoint": "impress_pdf_Export",
}


def family_of(document):
    if document.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return "excel"
    if document.supportsService("com.sun.star.presentation.PresentationDocument"):
        return "powerpoint"
    if document.supportsService("com.sun.star.text.GenericTextDocument"):
        return "word"
    if document.supportsService("com.sun.star.drawing.DrawingDocument"):
        return "drawing"
    return "unknown"


MIN_PAGE_SCALE = 10  # Calc's lower bound for PageScale
CSV_MAX_COLUMN_WIDTH = 6000  # 1/100 mm: a long-text CSV column wraps instead of running for metres


def tidy_csv_columns(document):
    """CSV has no layout of its own: LibreOffice sizes each column to its longest cell, so a notes column can
    be a metre wide. Cap those columns and wrap their text, then let rows grow to fit."""
    sheet = document.Sheets.getByIndex(0)
    end = used_end(sheet)
    if end is None:
        return
    columns = sheet.getColumns()
    for index in range(end[0] + 1):
        column = columns.getByIndex(index)
        if column.Width > CSV_MAX_COLUMN_WIDTH:
            column.Width = CSV_MAX_COLUMN_WIDTH
            column.IsTextWrapped = True
    sheet.getRows().OptimalHeight = True


def fit_wide_sheets(document):
    """For every sheet wider than its page: landscape, then scale it down to the page width; rows keep flowing
    onto further pages. The scale is computed here rather than with ScaleToPagesX=1, which gives the same
    result but made Calc lay the sheet out repeatedly (a 4 x 8000-row workbook: 55 s instead of 17 s)."""
    styles = document.StyleFamilies.getByName("PageStyles")
    sheets = document.Sheets
    for index in range(sheets.getCount()):
        sheet = sheets.getByIndex(index)
        if not sheet.IsVisible:
            continue
        width = content_width(sheet)
        if width <= 0:
            continue
        style = styles.getByName(sheet.PageStyle)
        if style.ScaleToPages or style.ScaleToPagesX or style.ScaleToPagesY or style.PageScale != 100:
            continue  # the author chose a scaling; keep it
        if width <= printable_width(style):
            continue
        if not style.IsLandscape:
            # A shared page style changes for every sheet that uses it; the narrow ones only turn landscape,
            # because the scale below never enlarges.
            long_side, short_side = max(style.Width, style.Height), min(style.Width, style.Height)
            style.IsLandscape = True
            style.Width = long_side
            style.Height = short_side
        printable = printable_width(style)
        if width > printable:
            style.PageScale = max(MIN_PAGE_SCALE, min(style.PageScale, printable * 100 // width))


def used_end(sheet):
    """(last column, last row) of the used area, or None for an empty sheet."""
    cursor = sheet.createCursor()
    cursor.gotoEndOfUsedArea(False)
    end = cursor.getRangeAddress()
    if end.EndColumn == 0 and end.EndRow == 0 and sheet.getCellByPosition(0, 0).getType().value == "EMPTY":
        return None
    return end.EndColumn, end.EndRow


def content_width(sheet):
    """Width (1/100 mm) of what would print: the print areas if the author set some, else the used area."""
    areas = sheet.getPrintAreas()
    if areas:
        return max(
            sheet.getCellRangeByPosition(area.StartColumn, area.StartRow, area.EndColumn, area.StartRow).Size.Width
            for area in areas
        )
    end = used_end(sheet)
    if end is None:
        return 0
    return sheet.getCellRangeByPosition(0, 0, end[0], 0).Size.Width


def printable_width(style):
    return style.Width - style.LeftMargin - style.RightMargin


def close(document):
    try:
        document.close(True)
    except Exception:  # CloseVetoException and friends: dispose() releases it regardless
        document.dispose()


def convert(desktop, request):
    interactions = Interactions()
    load = [
        prop("Hidden", True),
        # Read-only also refuses column changes, which a CSV needs (tidy_csv_columns); a CSV is always
        # our own UTF-8 copy in the job directory, so nothing of the client's is ever written.
        prop("ReadOnly", not request.get("csv")),
        # NEVER_EXECUTE, on top of the profile's macro settings.
        prop("MacroExecutionMode", 0),
        # NO_UPDATE: linked content (OLE links, DDE, linked sections and images) is not refreshed.
        prop("UpdateDocMode", 0),
        prop("InteractionHandler", interactions),
    ]
    if request.get("filter"):
        load.append(prop("FilterName", request["filter"]))
    if request.get("filterOptions"):
        load.append(prop("FilterOptions", request["filterOptions"]))
    try:
        document = desktop.loadComponentFromURL(request["input"], "_blank", 0, tuple(load))
    except Exception as error:  # IllegalArgumentException, IOException, RuntimeException: reported below
        document = None
        load_error = "%s: %s" % (type_name(error), getattr(error, "Message", str(error)))
    else:
        load_error = "LibreOffice returned no document"
    asked = ", ".join(interactions.seen)
    if interactions.password:
        if document is not None:
            close(document)
        return {"ok": False, "error": "password", "message": "password requested", "asked": asked}
    if document is None:
        return {"ok": False, "error": "unreadable", "message": load_error, "asked": asked}
    try:
        family = family_of(document)
        if family != request["family"]:
            return {"ok": False, "error": "wrong_kind", "message": "opened as %s" % family, "detected": family}
        if family == "excel":
            if request.get("csv"):
                tidy_csv_columns(document)
            fit_wide_sheets(document)
        try:
            export = request.get("exportFilter") or EXPORT_FILTERS[family]
            document.storeToURL(request["output"], (prop("FilterName", export),))
        except Exception as error:  # IOException: nothing printable, or the export failed
            return {
                "ok": False,
                "error": "export_failed",
                "message": "%s: %s" % (type_name(error), getattr(error, "Message", str(error))),
            }
        return {"ok": True, "repaired": interactions.repaired, "asked": asked}
    finally:
        close(document)


def bridge_alive(desktop, process):
    """False when LibreOffice is gone: a load that failed because soffice died is not a damaged file."""
    if process.poll() is not None:
        return False
    try:
        desktop.getFrames().getCount()
        return True
    except Exception:  # DisposedException: the UNO bridge to soffice is dead
        return False


def main():
    global _stopping
    options = arguments(sys.argv)
    process = start_soffice(options)
    threading.Thread(target=watch, args=(process,), daemon=True).start()
    context = connect(options, process)
    desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    send({"type": "ready", "sofficePid": process.pid, "security": security_settings(context)})
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        started = time.monotonic()
        try:
            answer = convert(desktop, request)
        except Exception as error:  # a dying LibreOffice (DisposedException) or a bug: answer, never hang
            answer = {"ok": False, "error": "crashed", "message": "%s: %s" % (type_name(error), error)}
        if not answer["ok"] and not bridge_alive(desktop, process):
            # The parent retries the document on a fresh instance; this one is finished.
            fatal("LibreOffice stopped during a conversion (%s)" % answer.get("message"))
        answer["id"] = request.get("id")
        answer["ms"] = round((time.monotonic() - started) * 1000)
        send(answer)
    # stdin closed: the parent is done (or dead). Take the whole group down: this helper, oosplash and
    # soffice.bin; there is nothing to save.
    _stopping = True
    os.killpg(os.getpgid(0), signal.SIGKILL)
    os._exit(0)


if __name__ == "__main__":
    main()
