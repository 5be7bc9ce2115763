import { createHash } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { toArrayBuffer } from "./cms.js";
import type { SignatureInFile } from "./signatures-in-file.js";

const digestNames: Readonly<Record<string, string>> = {
  "1.3.14.3.2.26": "SHA-1",
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};

/** What the signature's bytes say: whether the signed ranges still match it, and what it is made of. */
export interface Integrity {
  intact: boolean;
  /** Why it is not intact, or could not be checked. */
  problem: string | undefined;
  signedData: pkijs.SignedData | undefined;
  signer: pkijs.Certificate | undefined;
  digestAlgorithm: string | undefined;
}

const hexDigit = /^[0-9A-Fa-f\s]*$/;
const tstInfoType = "1.2.840.113549.1.9.16.1.4";

/**
 * Checks that the byte range covers the file but for exactly the /Contents string (anything else left out
 * could be changed unseen), then verifies the CMS over those bytes: the message digest against the signed
 * bytes and the signature over the signed attributes, with the signer certificate's key.
 */
export async function checkIntegrity(file: Uint8Array, signature: SignatureInFile): Promise<Integrity> {
  const fail = (problem: string, parts: Partial<Integrity> = {}): Integrity => ({
    intact: false,
    problem,
    signedData: undefined,
    signer: undefined,
    digestAlgorithm: undefined,
    ...parts,
  });
  const range = signature.byteRange;
  if (range === undefined) return fail("its /ByteRange is missing or malformed");
  const [start, firstLength, second, secondLength] = range;
  if (start !== 0 || second < firstLength || second + secondLength > file.length) {
    return fail("its /ByteRange does not lie within the file as a prefix and a rest around the signature");
  }
  const gap = Buffer.from(file.subarray(firstLength, second)).toString("latin1");
  if (!gap.startsWith("<") || !gap.endsWith(">") || !hexDigit.test(gap.slice(1, -1))) {
    return fail("its /ByteRange leaves out more than the signature's /Contents");
  }
  const signedBytes = Buffer.concat([
    file.subarray(0, firstLength),
    file.subarray(second, second + secondLength),
  ]);
  let signedData: pkijs.SignedData;
  try {
    const der = derPrefix(signature.contents);
    const info = pkijs.ContentInfo.fromBER(toArrayBuffer(der));
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    return fail(`its /Contents is not a CMS SignedData (${error instanceof Error ? error.message : error})`);
  }
  const signerInfo = signedData.signerInfos[0];
  const digestAlgorithm = signerInfo ? digestNames[signerInfo.digestAlgorithm.algorithmId] : undefined;
  const parts = { signedData, digestAlgorithm };
  if (signerInfo === undefined) return fail("its CMS has no signer", parts);
  try {
    const content = signedData.encapContentInfo.eContent;
    if (signature.subFilter === "adbe.pkcs7.sha1" && content !== undefined) {
      // The signed content is the SHA-1 of the ranges, not the ranges themselves.
      const digest = createHash("sha1").update(signedBytes).digest();
      if (!digest.equals(Buffer.from(content.valueBlock.valueHexView))) {
        return fail("the signed bytes do not match the digest the signature holds", parts);
      }
    }
    // A document time-stamp's content is a TSTInfo over the signed bytes, which PKI.js checks when given them.
    const stampsBytes = signedData.encapContentInfo.eContentType === tstInfoType;
    const result = await signedData.verify({
      signer: 0,
      ...(content === undefined || stampsBytes ? { data: toArrayBuffer(signedBytes) } : {}),
      checkChain: false,
      extendedMode: true,
    });
    const signer = result.signerCertificate ?? undefined;
    if (!result.signatureVerified) {
      const why = result.message || "the signed bytes do not match the signature";
      return fail(why, { ...parts, signer });
    }
    return { intact: true, problem: undefined, signedData, signer, digestAlgorithm };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return fail(`the signature could not be verified: ${message}`, parts);
  }
}

/** The DER value at the start of `bytes` (a CMS and /Contents's zero padding), by its length header. */
export function derPrefix(bytes: Uint8Array): Uint8Array {
  const parsed = asn1js.fromBER(toArrayBuffer(bytes));
  if (parsed.offset === -1) throw new Error(parsed.result.error || "not DER");
  return bytes.subarray(0, parsed.offset);
}
