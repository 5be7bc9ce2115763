import type { PdfDocument } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { entryAt, signatureFields } from "./signature-field.js";

/** A signature dictionary as the file has it, before anything is checked. */
export interface SignatureInFile {
  fieldName: string;
  /** [start, length, start, length]; undefined when missing or not four non-negative integers. */
  byteRange: [number, number, number, number] | undefined;
  contents: Uint8Array;
  subFilter: string | undefined;
  /** /M as written ("D:2026…"). */
  claimedTime: string | undefined;
  reason: string | undefined;
  location: string | undefined;
  /** The DocMDP permissions when this is a certification signature. */
  certification: 1 | 2 | 3 | undefined;
}

function text(object: Mupdf.PDFObject): string | undefined {
  return object.isString() ? object.asString() : undefined;
}

function byteRangeOf(object: Mupdf.PDFObject): SignatureInFile["byteRange"] {
  if (!object.isArray() || object.length !== 4) return undefined;
  const values = [0, 1, 2, 3].map((index) => object.get(index));
  if (!values.every((value) => value.isInteger() && value.asNumber() >= 0)) return undefined;
  return values.map((value) => value.asNumber()) as [number, number, number, number];
}

/** Every signed signature field of the document, in the AcroForm's order. */
export function signaturesInFile(doc: PdfDocument): SignatureInFile[] {
  return signatureFields(doc)
    .filter((field) => field.signed)
    .map(({ name, field }) => {
      const value = field.get("V");
      const contents = value.get("Contents");
      const subFilter = value.get("SubFilter");
      const references = value.get("Reference");
      let certification: SignatureInFile["certification"];
      for (let index = 0; references.isArray() && index < references.length; index += 1) {
        const reference = references.get(index);
        const method = entryAt(doc, reference, "TransformMethod");
        const permissions = entryAt(doc, reference, "TransformParams", "P");
        if (method.isName() && method.asName() === "DocMDP") {
          const p = permissions.isInteger() ? permissions.asNumber() : 2;
          certification = p === 1 || p === 3 ? p : 2;
        }
      }
      return {
        fieldName: name,
        byteRange: byteRangeOf(value.get("ByteRange")),
        contents: contents.isString() ? contents.asByteString() : new Uint8Array(0),
        subFilter: subFilter.isName() ? subFilter.asName() : undefined,
        claimedTime: text(value.get("M")),
        reason: text(value.get("Reason")),
        location: text(value.get("Location")),
        certification,
      };
    });
}
