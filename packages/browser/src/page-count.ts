/**
 * The page count of a PDF Chromium (Skia) just wrote: classic xref table, trailer /Root, catalog
 * /Pages, its /Count. Read through the xref rather than by searching the file, because embedded
 * images (JPEG passes through unchanged) are bytes the page chose. Undefined when the file is not
 * shaped like that, so the caller can say so instead of guessing.
 */
export function countPdfPages(pdf: Uint8Array): number | undefined {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString("latin1");
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text.slice(-256));
  const trailerAt = text.lastIndexOf("trailer");
  if (!startxref?.[1] || trailerAt === -1) return undefined;
  const root = /\/Root\s+(\d+)\s+\d+\s+R/.exec(text.slice(trailerAt, trailerAt + 512))?.[1];
  const offsets = readXref(text, Number(startxref[1]));
  if (root === undefined || offsets === undefined) return undefined;
  const catalog = objectText(text, offsets, Number(root));
  const pagesRef = catalog === undefined ? undefined : /\/Pages\s+(\d+)\s+\d+\s+R/.exec(catalog)?.[1];
  if (pagesRef === undefined) return undefined;
  const count = /\/Count\s+(\d+)/.exec(objectText(text, offsets, Number(pagesRef)) ?? "")?.[1];
  return count === undefined ? undefined : Number(count);
}

/** Object number → byte offset, from a classic cross-reference table (one or more subsections). */
function readXref(text: string, at: number): Map<number, number> | undefined {
  if (!text.startsWith("xref", at)) return undefined;
  const offsets = new Map<number, number>();
  const lines = text.slice(at + 4, text.indexOf("trailer", at)).split(/\r\n|\r|\n/);
  let next = 0;
  for (const line of lines) {
    const entry = /^(\d{10}) (\d{5}) ([nf])\s*$/.exec(line);
    const section = /^(\d+) (\d+)\s*$/.exec(line);
    if (entry?.[1] !== undefined) {
      if (entry[3] === "n") offsets.set(next, Number(entry[1]));
      next += 1;
    } else if (section?.[1] !== undefined) {
      next = Number(section[1]);
    }
  }
  return offsets;
}

function objectText(text: string, offsets: Map<number, number>, num: number): string | undefined {
  const at = offsets.get(num);
  if (at === undefined || !new RegExp(`^${num}\\s+\\d+\\s+obj\\b`).test(text.slice(at, at + 32))) {
    return undefined;
  }
  const end = text.indexOf("endobj", at);
  return text.slice(at, end === -1 ? at + 4096 : end);
}
