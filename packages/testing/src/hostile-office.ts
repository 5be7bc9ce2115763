import { crc32, deflateRawSync, constants as zlibConstants } from "node:zlib";

/** Word documents written byte by byte for the hardening tests: small files that cost a converter dearly. */

interface ZipEntry {
  name: string;
  /** Raw deflate data, and what it inflates to. */
  deflated: Buffer;
  size: number;
  crc: number;
}

function entry(name: string, content: string): ZipEntry {
  const data = Buffer.from(content);
  return { name, deflated: deflateRawSync(data), size: data.length, crc: crc32(data) };
}

/** A ZIP archive of deflated entries (no ZIP64: each entry under 4 GB). */
function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, deflated, size, crc } of entries) {
    const fileName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(deflated.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    central.writeUInt16LE(20, 6); // version needed
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(deflated.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, deflated);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const wordNamespace = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/** A .docx whose document.xml is `body` inside <w:body>, with the parts Word needs around it. */
function docxOf(document: ZipEntry): Buffer {
  return zipOf([
    entry(
      "[Content_Types].xml",
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    entry(
      "_rels/.rels",
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    document,
  ]);
}

/** A one-paragraph .docx that says `text`: the control for the bombs. */
export function plainDocx(text: string): Buffer {
  return docxOf(
    entry(
      "word/document.xml",
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${wordNamespace}"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
    ),
  );
}

/**
 * A .docx whose document.xml unpacks to about `unpackedBytes` (a run of spaces in one paragraph) from a
 * thousandth of that: a ZIP bomb with honest sizes. Each megabyte of spaces is deflated after a full
 * flush, so it compresses to the same bytes, which are repeated.
 */
export function zipBombDocx(unpackedBytes: number): Buffer {
  const head = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${wordNamespace}"><w:body><w:p><w:r><w:t xml:space="preserve">`,
  );
  const tail = Buffer.from("</w:t></w:r></w:p></w:body></w:document>");
  const megabyte = Buffer.alloc(1 << 20, 0x20);
  const chunks = Math.max(1, Math.floor(unpackedBytes / megabyte.length));
  const flushed = (data: Buffer) => deflateRawSync(data, { finishFlush: zlibConstants.Z_FULL_FLUSH });
  const spaces = flushed(megabyte);
  let crc = crc32(head);
  for (let index = 0; index < chunks; index += 1) crc = crc32(megabyte, crc);
  crc = crc32(tail, crc);
  const deflated = Buffer.concat([
    flushed(head),
    ...Array.from({ length: chunks }, () => spaces),
    deflateRawSync(tail),
  ]);
  return docxOf({
    name: "word/document.xml",
    deflated,
    size: head.length + chunks * megabyte.length + tail.length,
    crc,
  });
}

/**
 * A .docx whose document.xml declares entities ten deep, each ten of the one before ("billion laughs"):
 * expanding them would make 10^9 copies of one word.
 */
export function entityBombDocx(): Buffer {
  const levels = Array.from({ length: 9 }, (_, level) => {
    const previous = `&l${level};`.repeat(10);
    return `<!ENTITY l${level + 1} "${previous}">`;
  });
  return docxOf(
    entry(
      "word/document.xml",
      `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE w:document [<!ENTITY l0 "lol">${levels.join("")}]>` +
        `<w:document xmlns:w="${wordNamespace}"><w:body><w:p><w:r><w:t>&l9;</w:t></w:r></w:p></w:body></w:document>`,
    ),
  );
}
