// What PDF/A forbids or allows, shared by the preparation (which removes it) and the validation (which refuses it).

/** Actions PDF/A forbids at every level (ISO 19005-1 6.6.1 with its corrigenda, 19005-2/3 6.6.1). */
export const forbiddenActions = new Set([
  "Launch",
  "Sound",
  "Movie",
  "ResetForm",
  "ImportData",
  "JavaScript",
  "Hide",
  "SetOCGState",
  "Rendition",
  "Trans",
  "GoTo3DView",
  "SetState",
  "NOP",
]);
export const allowedNamedActions = new Set(["NextPage", "PrevPage", "FirstPage", "LastPage"]);

/** PDF/A-1 allows the annotation types of PDF 1.4 but FileAttachment, Sound and Movie. */
export const level1Annotations = new Set([
  "Text",
  "Link",
  "FreeText",
  "Line",
  "Square",
  "Circle",
  "Highlight",
  "Underline",
  "Squiggly",
  "StrikeOut",
  "Stamp",
  "Ink",
  "Popup",
  "Widget",
  "PrinterMark",
  "TrapNet",
]);
