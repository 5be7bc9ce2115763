import { open } from "node:fs/promises";

/** What the first bytes of a file say it is. */
export type Sniffed = { pdf: true } | { pdf: false; looksLike: string };

const headBytes = 64 * 1024;
// The PDF spec lets readers find the header within the first 1024 bytes (junk or a BOM may precede it).
const headerWindow = 1024;

export async function sniffFile(path: string): Promise<Sniffed> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(headBytes);
    const { bytesRead } = await handle.read(buffer, 0, headBytes, 0);
    return sniff(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

export function sniff(head: Buffer): Sniffed {
  if (head.length === 0) return { pdf: false, looksLike: "the file is empty" };
  const signature = binarySignature(head);
  if (signature !== undefined) return { pdf: false, looksLike: signature };
  const latin = head.toString("latin1");
  if (latin.slice(0, headerWindow).includes("%PDF-")) return { pdf: true };
  const text = textSignature(latin);
  if (text !== undefined) return { pdf: false, looksLike: text };
  // A PDF body without its header line: parsers can still rebuild it from the objects.
  if (/\d+\s+\d+\s+obj\b/.test(latin)) return { pdf: true };
  return looksLikeText(head)
    ? { pdf: false, looksLike: "the file is plain text, not a PDF" }
    : { pdf: false, looksLike: "the file's content is not a recognisable PDF" };
}

function binarySignature(head: Buffer): string | undefined {
  const starts = (...bytes: number[]): boolean => bytes.every((byte, index) => head[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return "the file is a PNG image, not a PDF";
  if (starts(0xff, 0xd8, 0xff)) return "the file is a JPEG image, not a PDF";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "the file is a GIF image, not a PDF";
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a))
    return "the file is a TIFF image, not a PDF";
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06))
    return zipKind(head.toString("latin1"));
  if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) {
    return "the file is a legacy Microsoft Office document (DOC/XLS/PPT), not a PDF";
  }
  return undefined;
}

function zipKind(latin: string): string {
  if (latin.includes("word/")) return "the file is a Word document (DOCX, a ZIP archive), not a PDF";
  if (latin.includes("xl/")) return "the file is an Excel workbook (XLSX, a ZIP archive), not a PDF";
  if (latin.includes("ppt/")) return "the file is a PowerPoint presentation (PPTX, a ZIP archive), not a PDF";
  if (latin.includes("opendocument")) return "the file is an OpenDocument file (a ZIP archive), not a PDF";
  return "the file is a ZIP archive or Office document, not a PDF";
}

function textSignature(latin: string): string | undefined {
  const start = latin
    .replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, "")
    .trimStart()
    .slice(0, 256)
    .toLowerCase();
  if (/^<!doctype html|^<html|^<head|^<body|^<meta|^<table|^<div/.test(start)) {
    return "the file is an HTML page, not a PDF";
  }
  if (start.startsWith("<?xml")) return "the file is an XML document, not a PDF";
  if (start.startsWith("{\\rtf")) return "the file is an RTF document, not a PDF";
  return undefined;
}

/** Whether a file's first bytes are text: no NUL, and at most 1 % other control characters. */
export function looksLikeText(head: Buffer): boolean {
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20)) control += 1;
  }
  return control <= head.length / 100;
}
