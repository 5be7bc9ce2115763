import { namespaces, parsePdfDate, parseXmpDate, XmpPacket } from "@octavo/xmp";
import { type PdfALevel, partOf } from "./levels.js";
import {
  field,
  forEachDictionary,
  itemsOf,
  keysOf,
  loadMupdf,
  nameOf,
  numberOf,
  type PdfDocument,
  type PdfObject,
  streamBytes,
  stringOf,
} from "./mupdf.js";
import { streamsBeyondPdfA1Limits } from "./number-limits.js";
import { allowedNamedActions, forbiddenActions, level1Annotations } from "./rules.js";

export interface PdfAValidation {
  /** True when no rule below found a problem. */
  valid: boolean;
  /** One line per broken rule, with up to five examples each. */
  problems: string[];
}

/** PDF/A-2 and -3 forbid these; we also refuse FileAttachment at level 2 (its files would have to be PDF/A). */
const level23ForbiddenAnnotations = new Set(["Sound", "Movie", "Screen", "3D", "RichMedia"]);
const annotationSubtypes = new Set([
  ...level1Annotations,
  ...level23ForbiddenAnnotations,
  "Polygon",
  "PolyLine",
  "Caret",
  "FileAttachment",
  "Watermark",
  "Redact",
  "Projection",
]);
const fontSubtypes = new Set([
  "Type1",
  "MMType1",
  "TrueType",
  "Type3",
  "Type0",
  "CIDFontType0",
  "CIDFontType2",
]);

const annotationFlags = { invisible: 1, hidden: 2, print: 4, noView: 32, toggleNoView: 256 } as const;

/** Collects broken rules; each rule becomes one line with a few examples. */
class Findings {
  private readonly found = new Map<string, Set<string>>();

  add(rule: string, example?: string): void {
    let examples = this.found.get(rule);
    if (examples === undefined) {
      examples = new Set();
      this.found.set(rule, examples);
    }
    if (example !== undefined && example !== "") examples.add(example);
  }

  lines(): string[] {
    return [...this.found].map(([rule, examples]) => {
      if (examples.size === 0) return rule;
      const shown = [...examples].slice(0, 5).join(", ");
      const more = examples.size > 5 ? ` and ${examples.size - 5} more` : "";
      return `${rule}: ${shown}${more}`;
    });
  }
}

/**
 * Our own PDF/A-Nb check, run on every output before it is returned. It reads the file through MuPDF's
 * object model (every object, streams included) and applies the rules listed in docs/engines.md ("PDF/A"). It is an
 * allow-nothing-forbidden structural check, not a full conformance validator: it does not look inside
 * content streams, fonts' glyph programs or ICC-based colour use.
 */
export async function validatePdfA(path: string, level: PdfALevel): Promise<PdfAValidation> {
  const mupdf = await loadMupdf();
  let doc: PdfDocument;
  try {
    const { readFile } = await import("node:fs/promises");
    doc = new mupdf.PDFDocument(await readFile(path));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { valid: false, problems: [`the file cannot be read as a PDF (${reason})`] };
  }
  try {
    const problems = checkDocument(doc, level);
    return { valid: problems.length === 0, problems };
  } finally {
    doc.destroy();
  }
}

/** The same check on a document that is already open. */
export function checkDocument(doc: PdfDocument, level: PdfALevel): string[] {
  const findings = new Findings();
  const trailer = doc.getTrailer();
  if (doc.needsPassword() || !field(trailer, "Encrypt").isNull()) {
    findings.add("the file is encrypted (PDF/A forbids encryption)");
    return findings.lines();
  }
  if (!field(trailer, "ID").isArray()) findings.add("the trailer has no file identifier (ID)");
  if (doc.countPages() < 1) findings.add("the file has no pages");
  const catalog = field(trailer, "Root");
  const xmp = checkMetadata(catalog, level, findings);
  checkInfo(field(trailer, "Info"), xmp, findings);
  checkOutputIntents(catalog, level, findings);
  checkCatalog(catalog, level, findings);
  if (level === "1" && streamsBeyondPdfA1Limits(doc) > 0) {
    findings.add(
      "content streams use numbers beyond PDF/A-1's limits (reals within ±32767; PDFBox Preflight 1.0.6)",
    );
  }
  if (level === "1" && nameOf(field(trailer, "Type")) === "XRef") {
    findings.add("the file uses a cross-reference stream, which PDF/A-1 forbids");
  }
  // PDF/A-3 wants every attachment associated with the document or a part of it through an AF array,
  // which can only point at indirect file specifications.
  const attachments = new Map<number, string>();
  const associated = new Set<number>();
  forEachDictionary(doc, (dict, key, objectNumber) => {
    checkDictionary(dict, key, level, findings);
    if (level === "3" && !dict.get("EF").isNull()) {
      if (key === "") attachments.set(objectNumber, fileSpecName(dict));
      else findings.add("attachments not listed in an AF array", fileSpecName(dict));
    }
    for (const item of itemsOf(dict.get("AF"))) if (item.isIndirect()) associated.add(item.asIndirect());
  });
  for (const [objectNumber, name] of attachments) {
    if (!associated.has(objectNumber)) findings.add("attachments not listed in an AF array", name);
  }
  return findings.lines();
}

function checkMetadata(catalog: PdfObject, level: PdfALevel, findings: Findings): XmpPacket | undefined {
  const metadata = field(catalog, "Metadata");
  if (!metadata.isStream()) {
    findings.add("there is no XMP metadata stream in the catalog");
    return undefined;
  }
  if (!field(metadata, "Filter").isNull())
    findings.add("the XMP metadata stream is compressed (it has a Filter)");
  let xmp: XmpPacket;
  try {
    xmp = XmpPacket.parse(streamBytes(metadata).toString("utf8"));
  } catch (error) {
    findings.add("the XMP metadata cannot be read", error instanceof Error ? error.message : String(error));
    return undefined;
  }
  const part = xmp.get({ namespace: namespaces.pdfaid, name: "part" })?.trim();
  const conformance = xmp.get({ namespace: namespaces.pdfaid, name: "conformance" })?.trim();
  if (part !== partOf(level)) {
    findings.add(`the XMP metadata does not claim PDF/A-${level} (pdfaid:part is ${part ?? "missing"})`);
  }
  if (conformance?.toUpperCase() !== "B") {
    findings.add(
      `the XMP metadata does not claim conformance B (pdfaid:conformance is ${conformance ?? "missing"})`,
    );
  }
  return xmp;
}

/** Info entries and the XMP properties PDF/A requires to carry the same value (ISO 19005-1 6.7.3). */
const infoToXmp = [
  { info: "Title", namespace: namespaces.dc, property: "title" },
  { info: "Author", namespace: namespaces.dc, property: "creator" },
  { info: "Subject", namespace: namespaces.dc, property: "description" },
  { info: "Keywords", namespace: namespaces.pdf, property: "Keywords" },
  { info: "Creator", namespace: namespaces.xmp, property: "CreatorTool" },
  { info: "Producer", namespace: namespaces.pdf, property: "Producer" },
] as const;
const infoDates = [
  { info: "CreationDate", property: "CreateDate" },
  { info: "ModDate", property: "ModifyDate" },
] as const;

function checkInfo(info: PdfObject, xmp: XmpPacket | undefined, findings: Findings): void {
  if (!info.isDictionary() || xmp === undefined) return;
  for (const entry of infoToXmp) {
    const value = stringOf(field(info, entry.info));
    if (value === undefined || value === "") continue;
    const inXmp = xmp.get({ namespace: entry.namespace, name: entry.property });
    if (inXmp !== value) findings.add("Info entries that do not match the XMP metadata", entry.info);
  }
  for (const entry of infoDates) {
    const value = stringOf(field(info, entry.info));
    if (value === undefined) continue;
    const date = parsePdfDate(value);
    if (date === undefined) {
      findings.add("Info dates that PDF/A validators cannot read", `${entry.info} ${value}`);
      continue;
    }
    const inXmp = xmp.get({ namespace: namespaces.xmp, name: entry.property });
    const xmpDate = inXmp === undefined ? undefined : parseXmpDate(inXmp);
    if (xmpDate === undefined || xmpDate.epochMs !== date.epochMs) {
      findings.add("Info entries that do not match the XMP metadata", entry.info);
    }
  }
}

function checkOutputIntents(catalog: PdfObject, level: PdfALevel, findings: Findings): void {
  const profiles = new Set<string>();
  let pdfaIntent = false;
  for (const intent of itemsOf(field(catalog, "OutputIntents"))) {
    const profile = field(intent, "DestOutputProfile");
    if (profile.isNull()) continue;
    profiles.add(profile.isIndirect() ? `obj ${profile.asIndirect()}` : profile.toString());
    if (nameOf(field(intent, "S")) !== "GTS_PDFA1") continue;
    if (!profile.isStream()) continue;
    pdfaIntent = true;
    checkIccProfile(profile, level, findings);
  }
  if (!pdfaIntent) findings.add("there is no PDF/A OutputIntent (GTS_PDFA1) with an ICC profile");
  if (profiles.size > 1) findings.add("the OutputIntents use different ICC profiles");
}

function checkIccProfile(profile: PdfObject, level: PdfALevel, findings: Findings): void {
  const bytes = streamBytes(profile);
  const channels: Record<string, number> = { "RGB ": 3, GRAY: 1, CMYK: 4 };
  if (bytes.length < 128 || bytes.toString("latin1", 36, 40) !== "acsp") {
    findings.add("the OutputIntent's ICC profile is not an ICC profile");
    return;
  }
  const space = bytes.toString("latin1", 16, 20);
  const expected = channels[space];
  const declared = numberOf(field(profile, "N"));
  if (expected === undefined)
    findings.add("the OutputIntent's ICC profile is not RGB, Gray or CMYK", space.trim());
  else if (declared !== expected) findings.add("the OutputIntent's ICC profile does not match its N entry");
  const major = bytes[8] ?? 0;
  if (level === "1" && major > 2) findings.add(`the ICC profile is version ${major}, too new for PDF/A-1`);
}

function checkCatalog(catalog: PdfObject, level: PdfALevel, findings: Findings): void {
  if (!field(catalog, "Names", "JavaScript").isNull()) findings.add("the document has JavaScript");
  if (level !== "3" && !field(catalog, "Names", "EmbeddedFiles").isNull()) {
    findings.add(`the document has embedded files, which PDF/A-${level} does not allow here`);
  }
  const form = field(catalog, "AcroForm");
  const needAppearances = field(form, "NeedAppearances");
  if (needAppearances.isBoolean() && needAppearances.asBoolean()) {
    findings.add("the form asks viewers to draw its fields (NeedAppearances is true)");
  }
  if (!field(form, "XFA").isNull()) findings.add("the document is an XFA form");
  if (level === "1" && !field(catalog, "OCProperties").isNull()) {
    findings.add("the document has optional content (layers), which PDF/A-1 forbids");
  }
}

function checkDictionary(dict: PdfObject, key: string, level: PdfALevel, findings: Findings): void {
  const type = nameOf(dict.get("Type"));
  const subtype = nameOf(dict.get("Subtype"));
  if (!dict.get("AA").isNull()) findings.add("additional actions (AA) are present");
  if (!dict.get("JS").isNull()) findings.add("the document has JavaScript");
  for (const actionKey of ["A", "OpenAction", "Next", "PA"]) {
    for (const action of itemsOf(dict.get(actionKey))) checkAction(action, findings);
  }
  if (type === "Action") checkAction(dict, findings);
  if (dict.isStream()) checkStream(dict, type, subtype, level, findings);
  if (type === "ObjStm" && level === "1") findings.add("the file uses object streams, which PDF/A-1 forbids");
  if (
    type === "Font" ||
    (subtype !== undefined && fontSubtypes.has(subtype) && !dict.get("BaseFont").isNull())
  ) {
    checkFont(dict, subtype, findings);
    return;
  }
  const isAnnotation =
    type === "Annot" ||
    (subtype !== undefined && annotationSubtypes.has(subtype) && dict.get("Rect").isArray());
  if (isAnnotation) {
    checkAnnotation(dict, subtype ?? "unknown", level, findings);
  } else if (
    !dict.isStream() &&
    (type === "ExtGState" || hasAnyKey(dict, ["BM", "ca", "SMask", "TR", "TR2"]))
  ) {
    checkGraphicsState(dict, level, findings);
  }
  if (level === "1" && nameOf(dict.get("S")) === "Transparency" && (type === "Group" || key === "Group")) {
    findings.add("transparency is present, which PDF/A-1 forbids", "transparency groups");
  }
  if (!dict.get("EF").isNull()) checkAttachment(dict, level, findings);
}

function checkAction(action: PdfObject, findings: Findings): void {
  if (!action.isDictionary()) return;
  const kind = nameOf(action.get("S"));
  if (kind === undefined) return;
  if (forbiddenActions.has(kind)) findings.add("forbidden actions are present", kind);
  if (kind === "Named") {
    const named = nameOf(action.get("N")) ?? "unknown";
    if (!allowedNamedActions.has(named)) findings.add("forbidden actions are present", `Named ${named}`);
  }
}

function checkStream(
  stream: PdfObject,
  type: string | undefined,
  subtype: string | undefined,
  level: PdfALevel,
  findings: Findings,
): void {
  if (hasAnyKey(stream, ["F", "FFilter", "FDecodeParms"]) && type !== "Filespec") {
    findings.add("streams refer to external files (F, FFilter or FDecodeParms)");
  }
  const filters = itemsOf(stream.get("Filter")).map((filter) => nameOf(filter));
  if (filters.includes("LZWDecode")) findings.add("LZW compression is used, which PDF/A forbids");
  if (subtype === "Image") {
    if (level === "1" && filters.includes("JPXDecode"))
      findings.add("JPEG 2000 images are present, which PDF/A-1 forbids");
    if (level === "1" && stream.get("SMask").isStream()) {
      findings.add("transparency is present, which PDF/A-1 forbids", "images with soft masks");
    }
    if (stream.get("Interpolate").isBoolean() && stream.get("Interpolate").asBoolean()) {
      findings.add("images ask viewers to interpolate them (Interpolate is true)");
    }
    if (hasAnyKey(stream, ["Alternates", "OPI"])) findings.add("images have alternates or OPI entries");
  }
  if (subtype === "PS" || nameOf(stream.get("Subtype2")) === "PS" || !stream.get("PS").isNull()) {
    findings.add("PostScript XObjects are present");
  }
  if (subtype === "Form" && !stream.get("Ref").isNull()) findings.add("reference XObjects are present");
}

function checkFont(font: PdfObject, subtype: string | undefined, findings: Findings): void {
  const name = nameOf(font.get("BaseFont")) ?? "unnamed font";
  if (subtype === "Type3") return;
  if (subtype === "Type0") {
    if (itemsOf(font.get("DescendantFonts")).length === 0) findings.add("fonts that are not embedded", name);
    return;
  }
  const descriptor = field(font, "FontDescriptor");
  if (!hasAnyKey(descriptor, ["FontFile", "FontFile2", "FontFile3"])) {
    findings.add("fonts that are not embedded", name);
  }
  if ((subtype === "Type1" || subtype === "MMType1") && codesWithoutGlyph(font).length > 0) {
    findings.add(missingGlyphRule, name);
  }
}

/** The rule codesWithoutGlyph breaks; convert.ts recognises it to explain the refusal. */
export const missingGlyphRule =
  "text uses character codes for which the font has no glyph (the .notdef glyph; PDFBox Preflight 3.3.1)";

/** Codes each base encoding leaves without a glyph name (WinAnsi maps its other unused codes to bullet). */
function undefinedInBase(encoding: string, code: number): boolean {
  if (code < 32) return true;
  return encoding === "StandardEncoding" && code >= 127 && code <= 160;
}

/**
 * Codes a simple Type 1 font gives a width (pdfwrite writes 0 for the codes a subset does not use) but no
 * glyph name: neither its Differences nor its base encoding name one, so they draw .notdef. Ghostscript
 * produces this when it substitutes a CID font the input did not embed with a simple font
 * (pdfjs_noembed-identity.pdf: Japanese text drawn as "K M O Q S"), or names .notdef in Differences
 * for codes it draws (pdfjs_issue19182_chi_tra.pdf, PMingLiU not embedded). A font without Encoding uses its
 * built-in encoding and is not judged.
 */
export function codesWithoutGlyph(font: PdfObject): number[] {
  const encoding = font.get("Encoding");
  let base: string;
  const differences = new Set<number>();
  const notdef = new Set<number>();
  if (encoding.isName()) {
    base = encoding.asName();
  } else if (encoding.isDictionary()) {
    base = nameOf(encoding.get("BaseEncoding")) ?? "StandardEncoding";
    let code = 0;
    for (const item of itemsOf(encoding.get("Differences"))) {
      if (item.isNumber()) code = item.asNumber();
      else if (item.isName()) {
        (item.asName() === ".notdef" ? notdef : differences).add(code);
        code += 1;
      }
    }
  } else {
    return [];
  }
  if (!["WinAnsiEncoding", "MacRomanEncoding", "StandardEncoding"].includes(base)) return [];
  const first = numberOf(font.get("FirstChar"));
  const widths = itemsOf(font.get("Widths"));
  if (first === undefined) return [];
  const missing: number[] = [];
  widths.forEach((width, index) => {
    const code = first + index;
    if ((numberOf(width) ?? 0) === 0 || differences.has(code)) return;
    if (notdef.has(code) || undefinedInBase(base, code)) missing.push(code);
  });
  return missing;
}

function checkAnnotation(annotation: PdfObject, subtype: string, level: PdfALevel, findings: Findings): void {
  const forbidden =
    level === "1"
      ? !level1Annotations.has(subtype)
      : level23ForbiddenAnnotations.has(subtype) || (level === "2" && subtype === "FileAttachment");
  if (forbidden) findings.add(`annotation types PDF/A-${level} forbids`, subtype);
  const flags = numberOf(annotation.get("F"));
  if (subtype !== "Popup" || level === "1") {
    const hidden =
      annotationFlags.hidden |
      annotationFlags.invisible |
      annotationFlags.noView |
      annotationFlags.toggleNoView;
    if (flags === undefined || (flags & annotationFlags.print) === 0 || (flags & hidden) !== 0) {
      findings.add("annotations that are hidden or not set to print", subtype);
    }
  }
  const appearance = annotation.get("AP");
  if (appearance.isDictionary() && keysOf(appearance).some((entry) => entry !== "N")) {
    findings.add("annotation appearances with entries other than N", subtype);
  }
  if (level !== "1" && field(appearance, "N").isNull() && subtype !== "Popup" && subtype !== "Link") {
    const rect = itemsOf(annotation.get("Rect")).map((value) => numberOf(value) ?? 0);
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = rect;
    if (x0 !== x1 && y0 !== y1) findings.add("annotations without an appearance stream", subtype);
  }
  if (subtype === "FreeText" && annotation.get("DA").isNull()) {
    findings.add("annotations without a required entry", "FreeText without DA");
  }
  if (subtype === "Ink" && !annotation.get("InkList").isArray()) {
    findings.add("annotations without a required entry", "Ink without InkList");
  }
  if (level === "1") {
    const newer = ["RD", "BE", "IT", "RT", "IRT", "ExData", "Measure"].filter(
      (key) => !annotation.get(key).isNull(),
    );
    if (newer.length > 0) findings.add("annotation entries PDF/A-1 (PDF 1.4) does not know", newer.join(" "));
    if (subtype === "Text" && ((flags ?? 0) & 24) !== 24)
      findings.add("note (Text) annotations that zoom or rotate");
  }
  const opacity = numberOf(annotation.get("CA"));
  if (level === "1" && opacity !== undefined && opacity !== 1) {
    findings.add("transparency is present, which PDF/A-1 forbids", "annotation opacity below 1");
  }
}

function checkGraphicsState(state: PdfObject, level: PdfALevel, findings: Findings): void {
  if (!state.get("TR").isNull()) findings.add("graphics states use transfer functions (TR)");
  const tr2 = state.get("TR2");
  if (!tr2.isNull() && nameOf(tr2) !== "Default")
    findings.add("graphics states use transfer functions (TR2)");
  if (level !== "1") return;
  const mask = state.get("SMask");
  if (!mask.isNull() && nameOf(mask) !== "None") {
    findings.add("transparency is present, which PDF/A-1 forbids", "soft masks");
  }
  for (const alphaKey of ["CA", "ca"]) {
    const alpha = numberOf(state.get(alphaKey));
    if (alpha !== undefined && alpha !== 1) {
      findings.add("transparency is present, which PDF/A-1 forbids", "constant alpha below 1");
    }
  }
  for (const mode of itemsOf(state.get("BM"))) {
    const blend = nameOf(mode);
    if (blend !== undefined && blend !== "Normal" && blend !== "Compatible") {
      findings.add("transparency is present, which PDF/A-1 forbids", `blend mode ${blend}`);
    }
  }
}

function checkAttachment(fileSpec: PdfObject, level: PdfALevel, findings: Findings): void {
  const name = fileSpecName(fileSpec);
  if (level !== "3") {
    findings.add(`the document has embedded files, which PDF/A-${level} does not allow here`, name);
    return;
  }
  if (nameOf(fileSpec.get("AFRelationship")) === undefined) {
    findings.add("attachments without an AFRelationship", name);
  }
  if (fileSpec.get("UF").isNull() || fileSpec.get("F").isNull())
    findings.add("attachments without F and UF names", name);
  const stream = field(fileSpec, "EF", "F");
  if (!stream.isStream() || nameOf(stream.get("Subtype")) === undefined) {
    findings.add("attachments without a MIME type (Subtype)", name);
  }
}

function fileSpecName(fileSpec: PdfObject): string {
  return stringOf(fileSpec.get("UF")) ?? stringOf(fileSpec.get("F")) ?? "unnamed attachment";
}

function hasAnyKey(dict: PdfObject, keys: string[]): boolean {
  return dict.isDictionary() && keys.some((key) => !dict.get(key).isNull());
}
