import { writeFile } from "node:fs/promises";
import type { Mupdf } from "@octavo/mupdf";
import type { PdfALevel } from "./levels.js";
import {
  deleteAnnotation,
  field,
  forEachDictionary,
  itemsOf,
  keysOf,
  nameOf,
  numberOf,
  type PdfDocument,
  type PdfObject,
  withPdf,
} from "./mupdf.js";
import { listSome } from "./names.js";
import { allowedNamedActions, forbiddenActions, level1Annotations } from "./rules.js";
import { flattenTransparency, neutraliseTransparency } from "./transparency.js";

/** What the MuPDF pass changed before Ghostscript sees the file; each item becomes a client warning. */
export interface Preparation {
  removedActions: string[];
  removedAttachments: string[];
  removedAnnotations: string[];
  /** 1-based numbers of the pages drawn as pictures for PDF/A-1 (their text stays beneath). */
  flattenedPages: number[];
  formAppearancesRebuilt: boolean;
  xfaRemoved: boolean;
}

const alwaysForbiddenAnnotations = new Set(["Sound", "Movie", "Screen", "3D", "RichMedia", "Projection"]);
const flags = {
  invisible: 1,
  hidden: 2,
  print: 4,
  noZoom: 8,
  noRotate: 16,
  noView: 32,
  toggleNoView: 256,
} as const;

/**
 * Ghostscript writes PDF/A but leaves some things to its input: it drops every annotation without the
 * print flag (links included), draws form fields from stale appearances when NeedAppearances is set,
 * copies attachments into PDF/A-1/-2, and rasterises whole pages, text and all, when PDF/A-1 meets
 * transparency. This MuPDF pass fixes the input first and writes it to `target`.
 */
export async function prepareForGhostscript(
  source: string,
  target: string,
  level: PdfALevel,
): Promise<Preparation> {
  const { bytes, preparation } = await withPdf(source, (doc, mupdf) => {
    markMissingAppearances(doc, true);
    const preparation: Preparation = {
      removedActions: removeForbiddenActions(doc),
      removedAttachments: level === "3" ? [] : removeAttachments(doc),
      removedAnnotations: [],
      flattenedPages: [],
      formAppearancesRebuilt: rebuildFormAppearances(doc),
      xfaRemoved: removeXfa(doc),
    };
    preparation.removedAnnotations = fixAnnotations(doc, level);
    markMissingAppearances(doc, false);
    if (level === "1") {
      preparation.flattenedPages = flattenTransparency(doc, mupdf);
      neutraliseTransparency(doc);
    }
    return { bytes: doc.saveToBuffer("compress-images").asUint8Array(), preparation };
  });
  await writeFile(target, bytes);
  return preparation;
}

/** The client-facing sentences for what the preparation changed. */
export function preparationWarnings(preparation: Preparation, name: string, level: PdfALevel): string[] {
  const warnings: string[] = [];
  if (preparation.removedAttachments.length > 0) {
    warnings.push(
      `PDF/A-${level} does not allow attachments, so they were removed from ${name}: ${listSome(preparation.removedAttachments)}. Choose level 3 to keep them.`,
    );
  }
  if (preparation.removedActions.length > 0) {
    warnings.push(
      `PDF/A forbids scripts and some actions, so they were removed: ${listSome(unique(preparation.removedActions))}.`,
    );
  }
  if (preparation.removedAnnotations.length > 0) {
    warnings.push(
      `Annotations PDF/A-${level} does not allow, or that were hidden, were removed: ${listSome(unique(preparation.removedAnnotations))}.`,
    );
  }
  if (preparation.flattenedPages.length > 0) {
    const pages = preparation.flattenedPages;
    warnings.push(
      `PDF/A-1 does not allow transparency, so ${pages.length === 1 ? "page" : "pages"} ${listSome(pages.map(String), 10)} of ${name} ${pages.length === 1 ? "was" : "were"} drawn as a picture at up to 300 dpi; the text stays searchable beneath it. Level 2 or 3 keeps these pages as they are.`,
    );
  }
  if (preparation.xfaRemoved) {
    warnings.push(`PDF/A forbids XFA forms; ${name} keeps only the form's static PDF pages.`);
  }
  return warnings;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

/**
 * Deletes JavaScript, additional actions (AA) and the actions PDF/A forbids; links and bookmarks keep
 * their allowed actions (GoTo, GoToR, URI, Named page moves, SubmitForm...).
 */
function removeForbiddenActions(doc: PdfDocument): string[] {
  const removed: string[] = [];
  const edits: (() => void)[] = [];
  forEachDictionary(doc, (dict) => {
    if (!dict.get("AA").isNull()) {
      removed.push("additional actions (AA)");
      edits.push(() => dict.delete("AA"));
    }
    for (const key of ["A", "OpenAction", "PA"]) {
      const action = dict.get(key);
      const kind = forbiddenKind(action);
      if (kind !== undefined) {
        removed.push(kind);
        edits.push(() => dict.delete(key));
      }
    }
    const next = dict.get("Next");
    if (next.isArray() || (next.isDictionary() && !next.get("S").isNull())) {
      const kept = itemsOf(next).filter((action) => forbiddenKind(action) === undefined);
      if (kept.length !== itemsOf(next).length) {
        removed.push("chained actions");
        edits.push(() => {
          const array = doc.newArray();
          for (const action of kept) array.push(action);
          if (kept.length === 0) dict.delete("Next");
          else dict.put("Next", array);
        });
      }
    }
  });
  const names = field(doc.getTrailer(), "Root", "Names");
  if (!field(names, "JavaScript").isNull()) {
    removed.push("JavaScript");
    edits.push(() => names.delete("JavaScript"));
  }
  for (const edit of edits) edit();
  return removed;
}

/** The action's type when PDF/A forbids it; JavaScript anywhere in a chain counts. */
function forbiddenKind(action: PdfObject): string | undefined {
  if (!action.isDictionary()) return undefined;
  const kind = nameOf(action.get("S"));
  if (!action.get("JS").isNull()) return "JavaScript";
  if (kind === undefined) return undefined;
  if (forbiddenActions.has(kind)) return kind;
  if (kind === "Named") {
    const named = nameOf(action.get("N")) ?? "unknown";
    return allowedNamedActions.has(named) ? undefined : `Named action ${named}`;
  }
  return undefined;
}

/** Removes the EmbeddedFiles name tree, the catalog's and pages' AF arrays; returns the file names. */
function removeAttachments(doc: PdfDocument): string[] {
  const catalog = field(doc.getTrailer(), "Root");
  const names = field(catalog, "Names");
  const files = Object.keys(
    names.isDictionary() && !names.get("EmbeddedFiles").isNull() ? doc.getEmbeddedFiles() : {},
  );
  if (names.isDictionary()) names.delete("EmbeddedFiles");
  if (catalog.isDictionary()) catalog.delete("AF");
  for (let index = 0; index < doc.countPages(); index += 1) doc.findPage(index).delete("AF");
  return files.length > 0 ? files : [];
}

/**
 * When a form asks viewers to draw its fields (NeedAppearances), the stored appearances are often empty
 * (LibreOffice writes them so); MuPDF draws each field from its value and the flag goes, as PDF/A wants.
 */
function rebuildFormAppearances(doc: PdfDocument): boolean {
  const form = field(doc.getTrailer(), "Root", "AcroForm");
  const need = field(form, "NeedAppearances");
  if (!need.isBoolean()) return false;
  if (need.asBoolean()) {
    for (let index = 0; index < doc.countPages(); index += 1) {
      const page = doc.loadPage(index);
      for (const widget of page.getWidgets()) {
        try {
          if (widget.isText()) widget.setTextValue(widget.getValue());
          else if (widget.isChoice()) widget.setChoiceValue(widget.getValue());
          widget.update();
        } catch {
          // A field MuPDF cannot redraw keeps the appearance it had.
        }
      }
      // Freed now rather than by the garbage collector after the document is gone.
      page.destroy();
    }
  }
  form.delete("NeedAppearances");
  return need.asBoolean();
}

function removeXfa(doc: PdfDocument): boolean {
  const form = field(doc.getTrailer(), "Root", "AcroForm");
  if (field(form, "XFA").isNull()) return false;
  form.delete("XFA");
  return true;
}

const missingAppearance = "OctavoMissingAP";
const level1ForbiddenAnnotationKeys = ["RD", "BE", "IT", "RT", "IRT", "ExData", "Measure"] as const;

/**
 * Loading a page makes MuPDF synthesise appearances for annotations that have none, but into a local
 * xref that saving drops, so after loading they look as if they had one. Before any page is loaded, the
 * annotations without an appearance are marked (`mark` true); afterwards the marks are removed.
 */
function markMissingAppearances(doc: PdfDocument, mark: boolean): void {
  for (let index = 0; index < doc.countPages(); index += 1) {
    const annots = doc.findPage(index).get("Annots");
    if (!annots.isArray()) continue;
    for (let at = 0; at < annots.length; at += 1) {
      let annotation = annots.get(at);
      if (!annotation.resolve().isDictionary()) continue;
      if (mark && !annotation.isIndirect()) {
        // MuPDF edits direct annotation dictionaries in a copy that saving drops: make them objects.
        annotation = doc.addObject(annotation);
        annots.put(at, annotation);
      }
      annotation = annotation.resolve();
      if (!mark) annotation.delete(missingAppearance);
      else if (field(annotation, "AP", "N").isNull()) annotation.put(missingAppearance, true);
    }
  }
}

/**
 * Every annotation PDF/A keeps must print and be visible, with only a normal appearance (N). Hidden
 * annotations and types the level forbids are removed; the rest get the print flag (Ghostscript would
 * otherwise drop them, links included) and an appearance when they have none.
 */
function fixAnnotations(doc: PdfDocument, level: PdfALevel): string[] {
  const removed: string[] = [];
  for (let index = 0; index < doc.countPages(); index += 1) {
    const page = doc.loadPage(index);
    const doomed: Mupdf.PDFAnnotation[] = [];
    for (const annotation of [...page.getAnnotations(), ...page.getWidgets()]) {
      const obj = annotation.getObject();
      const subtype = nameOf(obj.get("Subtype")) ?? "unknown";
      const flagValue = numberOf(obj.get("F")) ?? 0;
      const hidden = (flagValue & (flags.hidden | flags.invisible | flags.noView)) !== 0;
      const forbidden =
        alwaysForbiddenAnnotations.has(subtype) ||
        (level === "1" && !level1Annotations.has(subtype)) ||
        (level !== "3" && subtype === "FileAttachment") ||
        (level === "1" && subtype === "Popup");
      if (forbidden || hidden) {
        if (subtype !== "Popup") removed.push(hidden && !forbidden ? `hidden ${subtype}` : subtype);
        doomed.push(annotation);
        continue;
      }
      obj.put("F", (flagValue | flags.print) & ~flags.toggleNoView);
      // PDF/A-1 keeps no pop-up windows (above); their parents must not point at them.
      if (level === "1") obj.delete("Popup");
      if (subtype === "Ink" && !obj.get("InkList").isArray()) {
        removed.push("Ink without strokes");
        doomed.push(annotation);
        continue;
      }
      if (subtype === "FreeText" && obj.get("DA").isNull()) obj.put("DA", doc.newString("/Helv 12 Tf 0 g"));
      const appearance = obj.get("AP");
      if (appearance.isDictionary()) {
        for (const key of keysOf(appearance)) if (key !== "N") appearance.delete(key);
      }
      const missing = !obj.get(missingAppearance).isNull() || field(obj, "AP", "N").isNull();
      if (missing && subtype !== "Link" && subtype !== "Popup") {
        try {
          // A setter marks the annotation edited, so MuPDF writes the appearance it synthesises into the
          // document; update() alone puts it in a throw-away local xref that saving drops.
          annotation.setContents(annotation.getContents());
          annotation.update();
        } catch {
          // Without an appearance the validator reports it.
        }
      }
    }
    for (const annotation of doomed) deleteAnnotation(page, annotation);
    if (level === "1") {
      // Entries newer than PDF 1.4 (MuPDF adds RD when it draws an appearance); PDF/A-1 validators refuse them.
      for (const annotation of [...page.getAnnotations(), ...page.getWidgets()]) {
        const obj = annotation.getObject();
        for (const key of level1ForbiddenAnnotationKeys) obj.delete(key);
        // ISO 19005-1 6.5.3 wants the icon of a Text (note) annotation not to zoom or rotate; PDFBox enforces it.
        if (nameOf(obj.get("Subtype")) === "Text")
          obj.put("F", (numberOf(obj.get("F")) ?? 0) | flags.noZoom | flags.noRotate);
      }
    }
    page.destroy();
  }
  return removed;
}
