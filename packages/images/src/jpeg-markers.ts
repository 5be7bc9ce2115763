/** What a JPEG's headers say. */
export interface JpegHeader {
  /** The SOFn marker's n: 0 baseline, 1 extended, 2 progressive (Huffman); 3 and 9–15 lossless or arithmetic. */
  frameType: number;
  precision: number;
  width: number;
  height: number;
  components: number;
  /**
   * The Adobe APP14 segment's colour transform (0 none/CMYK, 1 YCbCr, 2 YCCK), when the file has one.
   * Its CMYK samples are stored inverted, as Photoshop writes them.
   */
  adobeTransform: number | undefined;
}

// Markers without a length: TEM, RST0–7, SOI, EOI.
const standalone = new Set([0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9]);
const endOfImage = 0xd9;
const startOfScan = 0xda;
const adobeApp = 0xee;

export type JpegReading = { header: JpegHeader; damage: undefined } | { header: undefined; damage: string };

/**
 * Walks the whole file, segment by segment and through each scan's coded data, to the end-of-image
 * marker: reads the frame header and the Adobe segment, and finds a file cut short or with a segment
 * running past its end, the damage a PDF reader would otherwise show as a grey or missing part. (Bytes
 * changed inside coded data are not found here; libjpeg only warns about those too.)
 */
export function readJpeg(bytes: Uint8Array): JpegReading {
  const damaged = (damage: string): JpegReading => ({ header: undefined, damage });
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return damaged("it does not start with a JPEG marker");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let frame: Omit<JpegHeader, "adobeTransform"> | undefined;
  let adobeTransform: number | undefined;
  let scans = 0;
  let at = 2;
  while (at + 2 <= bytes.length) {
    if (bytes[at] !== 0xff) {
      // Stray bytes between segments: readers skip to the next marker, as here.
      at = bytes.indexOf(0xff, at);
      if (at === -1) break;
      continue;
    }
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === endOfImage) {
      if (frame === undefined) return damaged("it has no frame header");
      if (scans === 0) return damaged("it has no image data");
      return { header: { ...frame, adobeTransform }, damage: undefined };
    }
    if (standalone.has(marker)) {
      at += 2;
      continue;
    }
    if (at + 4 > bytes.length) break;
    const length = view.getUint16(at + 2);
    const body = at + 4;
    if (length < 2 || body + length - 2 > bytes.length) break;
    if (isStartOfFrame(marker) && length >= 8 && frame === undefined) {
      frame = {
        frameType: marker - 0xc0,
        precision: bytes[body] ?? 0,
        height: view.getUint16(body + 1),
        width: view.getUint16(body + 3),
        components: bytes[body + 5] ?? 0,
      };
    } else if (marker === adobeApp && length >= 14 && latin(bytes, body, 5) === "Adobe") {
      adobeTransform = bytes[body + 11];
    }
    at = body + length - 2;
    if (marker === startOfScan) {
      scans += 1;
      at = endOfCodedData(bytes, at);
    }
  }
  return damaged("it is cut short: the end-of-image marker is missing");
}

/** Where a scan's coded data ends: the first 0xFF that is neither a stuffed 0xFF00 nor a restart marker. */
function endOfCodedData(bytes: Uint8Array, from: number): number {
  let at = bytes.indexOf(0xff, from);
  while (at !== -1 && at + 1 < bytes.length) {
    const next = bytes[at + 1] ?? 0;
    if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return at;
    at = bytes.indexOf(0xff, at + (next === 0xff ? 1 : 2));
  }
  return bytes.length;
}

/**
 * Whether a PDF's DCTDecode filter takes the file as it is: 8-bit Huffman-coded (baseline, extended or
 * progressive) with 1, 3 or 4 components and a height in its frame header.
 */
export function embeddableAsIs(header: JpegHeader): boolean {
  return (
    header.frameType <= 2 &&
    header.precision === 8 &&
    [1, 3, 4].includes(header.components) &&
    header.width > 0 &&
    header.height > 0
  );
}

function isStartOfFrame(marker: number): boolean {
  // C4 (DHT), C8 (JPG extension) and CC (DAC) share the range without being frame headers.
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function latin(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}
