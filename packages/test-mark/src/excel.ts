import type { Element } from "@xmldom/xmldom";
import { partsOfType, XmlPart } from "./opc.js";
import { testModeStamp } from "./stamp.js";
import { childElements, fragment, insertBefore } from "./xml.js";
import type { ZipPackage } from "./zip.js";

const sheetContentTypes = [
  "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.chartsheet+xml",
];
/** What follows headerFooter in a worksheet or chartsheet (the schema's sequence). */
const afterHeaderFooter = [
  "rowBreaks",
  "colBreaks",
  "customProperties",
  "cellWatches",
  "ignoredErrors",
  "smartTags",
  "drawing",
  "legacyDrawing",
  "legacyDrawingHF",
  "drawingHF",
  "picture",
  "oleObjects",
  "controls",
  "webPublishItems",
  "tableParts",
  "extLst",
];
/** The headers of a sheet, in the schema's order (footers between them). */
const headerNames = ["oddHeader", "evenHeader", "firstHeader"] as const;
const headerFooterOrder = [
  "oddHeader",
  "oddFooter",
  "evenHeader",
  "evenFooter",
  "firstHeader",
  "firstFooter",
];

/**
 * Puts the stamp in the left section of every sheet's printed header: the odd-page header always, and
 * the even-page and first-page ones where the sheet has them. What the header said stays.
 */
export function markXlsx(pkg: ZipPackage): void {
  const sheets = sheetContentTypes.flatMap((type) => partsOfType(pkg, type));
  if (sheets.length === 0) throw new Error("the workbook has no sheet");
  for (const name of sheets) {
    const sheet = XmlPart.read(pkg, name);
    const ns = sheet.root.namespaceURI ?? "";
    let headerFooter = childElements(sheet.root).find((element) => element.localName === "headerFooter");
    if (headerFooter === undefined) {
      headerFooter = fragment(sheet.document, `<headerFooter xmlns="${ns}"/>`);
      insertBefore(sheet.root, headerFooter, afterHeaderFooter);
    }
    for (const header of headerNames) {
      const existing = childElements(headerFooter).find((element) => element.localName === header);
      if (existing === undefined && header !== "oddHeader") continue;
      const element = existing ?? newHeader(sheet, headerFooter, ns, header);
      element.textContent = withStamp(element.textContent ?? "");
    }
    sheet.save(pkg);
  }
}

function newHeader(sheet: XmlPart, headerFooter: Element, ns: string, name: string): Element {
  const element = fragment(sheet.document, `<${name} xmlns="${ns}"/>`);
  const later = headerFooterOrder.slice(headerFooterOrder.indexOf(name) + 1);
  insertBefore(headerFooter, element, later);
  return element;
}

/**
 * A header's codes with the stamp first in its left section (&L). Text before any section code belongs to
 * the centre section, so it is moved behind an explicit &C.
 */
export function withStamp(codes: string): string {
  const left = sectionStart(codes, "L");
  if (left !== undefined) return `${codes.slice(0, left)}${testModeStamp}  ${codes.slice(left)}`;
  const first = firstSection(codes);
  const rest = codes === "" || first === 0 ? codes : `&C${codes}`;
  return `&L${testModeStamp}${rest}`;
}

/** Where the text of the section `&{letter}` starts; "&&" is a literal ampersand. */
function sectionStart(codes: string, letter: string): number | undefined {
  for (let index = 0; index < codes.length - 1; index += 1) {
    if (codes[index] !== "&") continue;
    const next = codes[index + 1];
    if (next === letter) return index + 2;
    if (next === '"') {
      // A font name, &"Arial,Bold": skipped whole.
      const close = codes.indexOf('"', index + 2);
      index = close < 0 ? codes.length : close;
    } else index += 1;
  }
  return undefined;
}

/** Where the first section code (&L, &C or &R) is, if anywhere. */
function firstSection(codes: string): number | undefined {
  const starts = ["L", "C", "R"].flatMap((letter) => {
    const start = sectionStart(codes, letter);
    return start === undefined ? [] : [start - 2];
  });
  return starts.length === 0 ? undefined : Math.min(...starts);
}
