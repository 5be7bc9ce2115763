import { open, readFile } from "node:fs/promises";
import { looksLikeText } from "@octavo/engines";
import * as CFB from "cfb";
import { zipPackageExtensions } from "./extensions.js";
import { zipBombIn } from "./zip-size.js";

/** What the bytes of an input say, before LibreOffice sees it. */
export type InputVerdict =
  | { kind: "ok" }
  | { kind: "empty" }
  | { kind: "password" }
  | { kind: "mismatch"; looksLike: string }
  | { kind: "zip-bomb"; unpackedBytes: number; size: number };

const headBytes = 4096;
// Reading a compound file whole to look for its encryption streams is fine up to this size; larger
// ones are left to LibreOffice, whose password prompt is answered the same way.
const maxCompoundFileBytes = 256 * 1024 ** 2;

const cfbMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * Checks an input against its extension. Only clear cases are decided here: an empty file, content of a
 * foreign kind (a PDF, an image, an archive), a ZIP-package extension (.docx, .odt, …) on something that
 * is neither a ZIP package nor a compound file, and OOXML encryption, which LibreOffice 7.4 reports as a
 * password prompt for some files and as a damaged package for others. Everything else goes to LibreOffice,
 * whose own type detection (and the family check after loading) has the last word.
 */
export async function inspectInput(path: string, extension: string): Promise<InputVerdict> {
  const { head, size } = await readHead(path);
  if (size === 0) return { kind: "empty" };
  const foreign = foreignKind(head);
  if (foreign !== undefined) return { kind: "mismatch", looksLike: foreign };
  if (startsWith(head, cfbMagic)) {
    return size <= maxCompoundFileBytes && (await isEncryptedPackage(path))
      ? { kind: "password" }
      : { kind: "ok" };
  }
  if (zipPackageExtensions.has(extension) && !isZip(head)) {
    return {
      kind: "mismatch",
      looksLike: looksLikeText(head) ? "plain text" : "not a ZIP package, which this format always is",
    };
  }
  const bomb = isZip(head) ? await zipBombIn(path, size) : undefined;
  if (bomb !== undefined) return { kind: "zip-bomb", ...bomb };
  return { kind: "ok" };
}

async function readHead(path: string): Promise<{ head: Buffer; size: number }> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(headBytes, size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { head: buffer.subarray(0, bytesRead), size };
  } finally {
    await handle.close();
  }
}

function startsWith(head: Buffer, bytes: readonly number[], at = 0): boolean {
  return bytes.every((byte, index) => head[at + index] === byte);
}

function isZip(head: Buffer): boolean {
  // Local file header, or the end record of an empty archive (damaged, but LibreOffice may say more).
  return startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]);
}

function foreignKind(head: Buffer): string | undefined {
  const latin = head.subarray(0, 1024).toString("latin1");
  if (/^(\uFEFF|\u00EF\u00BB\u00BF)?\s*%PDF-/.test(latin)) return "a PDF document";
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return "a PNG image";
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "a JPEG image";
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return "a GIF image";
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) {
    return "a TIFF image";
  }
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) {
    return "a WebP image";
  }
  if (startsWith(head, [0x1f, 0x8b])) return "a gzip archive";
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return "a 7-Zip archive";
  if (startsWith(head, [0x52, 0x61, 0x72, 0x21])) return "a RAR archive";
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46])) return "a program (ELF)";
  return undefined;
}

/**
 * An encrypted OOXML document (MS-OFFCRYPTO) is a compound file holding `EncryptionInfo` and
 * `EncryptedPackage` streams instead of a ZIP package, whatever its extension says.
 */
async function isEncryptedPackage(path: string): Promise<boolean> {
  const names = streamNames(await readFile(path));
  return names?.has("EncryptionInfo") === true && names.has("EncryptedPackage");
}

function streamNames(bytes: Buffer): Set<string> | undefined {
  try {
    return new Set(CFB.read(bytes, { type: "buffer" }).FileIndex.map((entry) => entry.name));
  } catch {
    // A damaged compound file is not ours to judge: LibreOffice reports it as damaged, or recovers it.
    return undefined;
  }
}
