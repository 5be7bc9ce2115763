import { createHash } from "node:crypto";
import { deflateRawSync, deflateSync, constants as zlibConstants } from "node:zlib";

/**
 * Small PDFs written byte by byte for the isolation tests: files that cost an engine far more than
 * their size. Each is a few kilobytes and made in a millisecond.
 */

function stream(dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`),
    data,
    Buffer.from("\nendstream"),
  ]);
}

/** A PDF of the given objects (object 1 is the catalog), with a correct cross-reference table. */
function pdfOf(objects: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
    parts.push(object);
    length += object.length;
  });
  const table = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${table}` +
        `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

/** One page whose content stream says `text` and then draws form XObject 5 (if any). */
function onePage(text: string, drawsForm: boolean): Buffer[] {
  const resources = drawsForm ? "/Resources << /XObject << /F 5 0 R >> >>" : "";
  return [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${resources} /Contents 4 0 R >>`),
    stream("", Buffer.from(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET${drawsForm ? " /F Do" : ""}`)),
  ];
}

/**
 * Form XObjects nested `depth` deep, each drawing the next one twice: the page draws its last form
 * 2^depth times. `strokes`: the last form strokes a line; at depth 22, MuPDF spends about a minute on
 * the page; far deeper (60), its WebAssembly runs off its memory ("memory access out of bounds") and
 * throws. `text`: the last form shows twenty letters, so layout analysis of depth 17 holds 2.6 million
 * characters in JavaScript, far beyond a small heap.
 */
export function nestedFormsPdf(depth: number, leaf: "strokes" | "text" = "strokes"): Buffer {
  const objects = onePage("Nested forms", true);
  const drawing = leaf === "strokes" ? "0 0 m 1 1 l S" : "BT /F1 8 Tf 10 10 Td (abcdefghij klmnopqrst) Tj ET";
  for (let level = 0; level < depth; level += 1) {
    const bbox = "/Type /XObject /Subtype /Form /BBox [0 0 612 792]";
    objects.push(
      level < depth - 1
        ? stream(`${bbox} /Resources << /XObject << /F ${6 + level} 0 R >> >>`, Buffer.from("/F Do /F Do"))
        : stream(bbox, Buffer.from(drawing)),
    );
  }
  return pdfOf(objects);
}

/**
 * `pages` pages under one /Pages node, all drawing one shared content stream: a real page tree,
 * about 100 bytes a page (200,000 pages make 22 MB).
 */
export function manyPagesPdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 4} 0 R`).join(" ");
  const page = Buffer.from("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>");
  return pdfOf([
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`),
    stream("", Buffer.from("0 0 m 100 100 l S")),
    ...Array.from({ length: pages }, () => page),
  ]);
}

/**
 * One ordinary page and `objects` more objects (each `null`), packed in one compressed object stream
 * with a cross-reference stream, as PDF 1.5 allows: a million objects in about 3 MB.
 */
export function manyObjectsPdf(objects: number): Buffer {
  const plain = onePage("Many objects", false);
  const first = plain.length + 2; // after the plain objects and the object stream itself
  const numbers = Array.from({ length: objects }, (_, index) => first + index);
  const header = numbers.map((number, index) => `${number} ${index * 5}`).join(" ");
  const packed = Buffer.from(`${header}\n${"null ".repeat(objects)}`);
  const objectStream = stream(
    `/Type /ObjStm /N ${objects} /First ${header.length + 1} /Filter /FlateDecode`,
    deflateSync(packed),
  );
  const head = Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1");
  const bodies = [...plain, objectStream];
  const offsets: number[] = [];
  let length = head.length;
  const parts: Buffer[] = [head];
  bodies.forEach((body, index) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
    parts.push(object);
    length += object.length;
  });
  // Cross-reference stream rows (type, field 2, field 3), widths 1, 4 and 4: the free head, the plain
  // objects and the object stream by offset, the packed objects by stream and index, then itself.
  const xrefNumber = first + objects;
  const rows = Buffer.alloc((xrefNumber + 1) * 9);
  const row = (number: number, type: number, second: number, third: number) => {
    rows.writeUInt8(type, number * 9);
    rows.writeUInt32BE(second, number * 9 + 1);
    rows.writeUInt32BE(third, number * 9 + 5);
  };
  row(0, 0, 0, 0xffff);
  for (const [index, offset] of offsets.entries()) row(index + 1, 1, offset, 0);
  for (const [index, number] of numbers.entries()) row(number, 2, bodies.length, index);
  row(xrefNumber, 1, length, 0);
  const xref = stream(
    `/Type /XRef /Size ${xrefNumber + 1} /W [1 4 4] /Root 1 0 R /Filter /FlateDecode`,
    deflateSync(rows),
  );
  parts.push(
    Buffer.from(`${xrefNumber} 0 obj\n`),
    xref,
    Buffer.from(`\nendobj\nstartxref\n${length}\n%%EOF\n`),
  );
  return Buffer.concat(parts);
}

/**
 * A page drawing one image that declares `width` × `height` RGB samples but carries a few bytes of
 * Flate data: decoding it whole would take width × height × 3 bytes.
 */
export function hugeImagePdf(width: number, height: number): Buffer {
  return imagePagePdf(
    `/Width ${width} /Height ${height} /Filter /FlateDecode`,
    deflateSync(Buffer.alloc(4096)),
  );
}

/** One page drawing image 5 over the whole page: RGB, 8 bits, with these entries and data. */
function imagePagePdf(entries: string, data: Buffer): Buffer {
  const objects = onePage("Image", false);
  objects[2] = Buffer.from(
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im 5 0 R >> >> /Contents 4 0 R >>",
  );
  objects[3] = stream("", Buffer.from("q 612 0 0 792 0 0 cm /Im Do Q"));
  objects.push(
    stream(`/Type /XObject /Subtype /Image /ColorSpace /DeviceRGB /BitsPerComponent 8 ${entries}`, data),
  );
  return pdfOf(objects);
}

/**
 * One page whose content stream inflates to `inflatedBytes` of spaces (2 GB from about 2 MB): valid,
 * but a decompression bomb for anything that reads the content whole.
 */
export function contentBombPdf(inflatedBytes: number): Buffer {
  const objects = onePage("Content bomb", false);
  objects[3] = stream("/Filter /FlateDecode", zlibOfRepeatedSpaces(inflatedBytes));
  return pdfOf(objects);
}

/**
 * A zlib stream of `total` spaces, built from one compressed megabyte repeated: each megabyte is
 * deflated after a full flush, which resets the compressor, so every one compresses to the same bytes.
 */
export function zlibOfRepeatedSpaces(total: number): Buffer {
  const chunkBytes = 1 << 20;
  const chunks = Math.max(1, Math.floor(total / chunkBytes));
  const block = deflateRawSync(Buffer.alloc(chunkBytes, 0x20), {
    finishFlush: zlibConstants.Z_FULL_FLUSH,
  });
  const length = chunks * chunkBytes;
  // Adler-32 of `length` spaces: a = 1 + 32·n, b = Σ a over the bytes (both mod 65521).
  const modulus = 65521n;
  const n = BigInt(length);
  const a = (1n + 32n * n) % modulus;
  const b = (n + (32n * n * (n + 1n)) / 2n) % modulus;
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(Number((b << 16n) | a));
  return Buffer.concat([
    Buffer.from([0x78, 0x9c]),
    ...Array.from({ length: chunks }, () => block),
    Buffer.from([0x03, 0x00]), // the final, empty block
    checksum,
  ]);
}

/** A page tree `depth` /Pages nodes deep with one page at the bottom. */
export function deepPageTreePdf(depth: number): Buffer {
  const objects = onePage("Deep page tree", false);
  // The root (object 2) and objects 5, 6, … are the /Pages nodes, each the parent of the next; the page
  // (object 3) hangs under the last.
  const nodes = Array.from({ length: depth }, (_, level) => (level === 0 ? 2 : 4 + level));
  const node = (level: number) => {
    const parent = level === 0 ? "" : `/Parent ${nodes[level - 1]} 0 R `;
    return Buffer.from(`<< /Type /Pages ${parent}/Kids [${nodes[level + 1] ?? 3} 0 R] /Count 1 >>`);
  };
  objects[1] = node(0);
  for (let level = 1; level < depth; level += 1) objects.push(node(level));
  objects[2] = Buffer.from(
    `<< /Type /Page /Parent ${nodes[depth - 1]} 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>`,
  );
  return pdfOf(objects);
}

/** A page tree whose second kid is the root itself: walking it never ends. */
export function loopingPageTreePdf(): Buffer {
  const objects = onePage("Looping page tree", false);
  objects[1] = Buffer.from("<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>");
  return pdfOf(objects);
}

/** One page whose content stream claims Flate but holds `bytes` bytes of noise. */
export function garbageStreamPdf(bytes: number): Buffer {
  const objects = onePage("Garbage stream", false);
  objects[3] = stream("/Filter /FlateDecode", noise(bytes));
  return pdfOf(objects);
}

/** The same `bytes` bytes of noise every time (SHA-256 of a counter), so a test sees one file. */
function noise(bytes: number): Buffer {
  const blocks = Array.from({ length: Math.ceil(bytes / 32) }, (_, index) =>
    createHash("sha256").update(String(index)).digest(),
  );
  return Buffer.concat(blocks).subarray(0, bytes);
}

/** A page drawing one 1,000 × 1,000 image whose data, under `filter` (e.g. JPXDecode), is noise. */
export function garbageImagePdf(filter: string): Buffer {
  return imagePagePdf(`/Width 1000 /Height 1000 /Filter /${filter}`, noise(50_000));
}
