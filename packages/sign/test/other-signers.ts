import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";

/**
 * Signatures made by code we did not write, for verification to read: poppler's pdfsig (NSS) signs a
 * whole file, and OpenSSL signs byte ranges we choose, as a hostile or careless signer would.
 */

/** Signs `pdf` with pdfsig from the PKCS#12 file `p12`, in an NSS database made for the call. */
export async function popplerSign(
  pdf: string,
  p12: string,
  password: string,
  out: string,
  fieldName = "PopplerSignature",
): Promise<string> {
  const db = `sql:${await mkdtemp(`${out}-nss-`)}`;
  execFileSync("certutil", ["-N", "-d", db, "--empty-password"]);
  execFileSync("pk12util", ["-i", p12, "-d", db, "-W", password], { stdio: "ignore" });
  const nick = execFileSync("pdfsig", ["-nssdir", db, "-list-nicks"], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line.length > 0 && !line.endsWith(":"));
  if (!nick) throw new Error(`pk12util imported no certificate from ${p12}`);
  execFileSync("pdfsig", [
    "-nssdir",
    db,
    "-add-signature",
    "-nick",
    nick,
    "-new-signature-field-name",
    fieldName,
    "-reason",
    "signed by poppler",
    pdf,
    out,
  ]);
  return out;
}

/** [offset, length, offset, length] of the last /ByteRange in the file, and where its numbers are written. */
function lastByteRange(bytes: Buffer): { ranges: number[]; start: number; end: number } {
  const at = bytes.lastIndexOf("/ByteRange");
  const start = bytes.indexOf("[", at) + 1;
  const end = bytes.indexOf("]", start);
  const ranges = bytes.toString("latin1", start, end).trim().split(/\s+/).map(Number);
  return { ranges, start, end };
}

/**
 * Rewrites the last signature of `signedPdf` so that it signs the byte ranges `rangesFor` picks, with a
 * detached CMS that OpenSSL makes over exactly those bytes: the digest matches, and only a verifier that
 * checks what the ranges leave out can tell.
 */
export async function resignWithRanges(
  signedPdf: string,
  out: string,
  p12: string,
  rangesFor: (contents: { from: number; to: number; fileLength: number }) => number[],
): Promise<string> {
  const bytes = await readFile(signedPdf);
  const { ranges, start, end } = lastByteRange(bytes);
  const [, firstLength = 0, secondOffset = 0] = ranges;
  const contents = { from: firstLength, to: secondOffset, fileLength: bytes.length };
  const chosen = rangesFor(contents);
  const written = chosen.join(" ");
  if (written.length > end - start) throw new Error("the chosen /ByteRange does not fit the placeholder");
  bytes.write(written.padEnd(end - start, " "), start, "latin1");

  const signedBytes: Buffer[] = [];
  for (let index = 0; index < chosen.length; index += 2) {
    const offset = chosen[index] ?? 0;
    signedBytes.push(bytes.subarray(offset, offset + (chosen[index + 1] ?? 0)));
  }
  const dataPath = `${out}.data`;
  await writeFile(dataPath, Buffer.concat(signedBytes));
  const cms = execFileSync("openssl", [
    "cms",
    "-sign",
    "-binary",
    "-md",
    "sha256",
    "-outform",
    "DER",
    "-signer",
    `${p12}.pem`,
    "-inkey",
    `${p12}.key.pem`,
    "-in",
    dataPath,
  ]);
  const hex = cms.toString("hex");
  const room = contents.to - contents.from - 2;
  if (hex.length > room) throw new Error("the CMS does not fit /Contents");
  bytes.write(hex.padEnd(room, "0"), contents.from + 1, "latin1");
  await writeFile(out, bytes);
  return out;
}
