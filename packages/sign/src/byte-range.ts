import { byteRangePlaceholder } from "./signature-field.js";

/** Where the signature's /Contents hex string lies in the saved file, its angle brackets included. */
export interface ContentsSpan {
  /** Offset of "<". */
  start: number;
  /** Offset just past ">". */
  end: number;
}

const latin1 = new TextDecoder("latin1");
const placeholderText = `/ByteRange[0 ${byteRangePlaceholder} ${byteRangePlaceholder} ${byteRangePlaceholder}]`;

/**
 * Finds object `objectNumber` in the part of `file` written after `appendedFrom` (the incremental update)
 * and fills its /ByteRange with the real offsets: everything but the /Contents string. The placeholder's
 * width is kept, padded with spaces, so no offset moves.
 */
export function fillByteRange(file: Uint8Array, appendedFrom: number, objectNumber: number): ContentsSpan {
  const text = latin1.decode(file.subarray(appendedFrom));
  const header = new RegExp(`(?:^|[\\r\\n])${objectNumber} 0 obj\\b`).exec(text);
  if (header === null) throw new Error(`the signature dictionary (object ${objectNumber}) was not written`);
  const objectEnd = text.indexOf("endobj", header.index);
  const body = text.slice(header.index, objectEnd);
  const rangeAt = body.indexOf(placeholderText);
  const contentsAt = body.indexOf("/Contents<");
  if (rangeAt < 0 || contentsAt < 0) throw new Error("the signature dictionary was not written as expected");
  const start = appendedFrom + header.index + contentsAt + "/Contents".length;
  const end = file.indexOf(0x3e /* > */, start) + 1;
  const numbers = `0 ${start} ${end} ${file.length - end}`;
  const filled = `/ByteRange[${numbers.padEnd(placeholderText.length - "/ByteRange[]".length, " ")}]`;
  file.set(new TextEncoder().encode(filled), appendedFrom + header.index + rangeAt);
  return { start, end };
}

/** The two signed parts of the file: before and after the /Contents string. */
export function signedParts(file: Uint8Array, span: ContentsSpan): [Uint8Array, Uint8Array] {
  return [file.subarray(0, span.start), file.subarray(span.end)];
}

/** Writes the CMS into /Contents as hex, zeros after it; false when it does not fit. */
export function fillContents(file: Uint8Array, span: ContentsSpan, cms: Uint8Array): boolean {
  const room = (span.end - span.start - 2) / 2;
  if (cms.length > room) return false;
  const hex = Buffer.from(cms)
    .toString("hex")
    .toUpperCase()
    .padEnd(room * 2, "0");
  file.set(new TextEncoder().encode(hex), span.start + 1);
  return true;
}
