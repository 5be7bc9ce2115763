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
