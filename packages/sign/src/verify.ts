import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SignatureReport as FileReport, SignatureEntry } from "@octavo/contracts/signature-report";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  JobFailure,
  probeSource,
  reportProgress,
  runOperation,
} from "@octavo/engines";
import { loadMupdf, type MupdfModule } from "@octavo/mupdf";
import { instantOf } from "@octavo/xmp";
import * as pkijs from "pkijs";
import { oids, toArrayBuffer } from "./cms.js";
import { checkIntegrity, type Integrity } from "./integrity.js";
import { allowedKinds, laterRevisions } from "./revisions.js";
import { type SignatureInFile, signaturesInFile } from "./signatures-in-file.js";
import { candidateRoots, checkChain, issuerOf, subjectOf } from "./trust.js";

export interface VerifyInputs {
  pdf: EngineInput;
  /** Extra trusted roots (PEM or DER), beside Debian's ca-certificates. */
  roots: EngineInput[];
}

/**
 * One signature's findings, and the file's report: the OpenAPI document's SignatureReport, one schema for the
 * engine, the job's `verification` and the SDK. Nothing is fetched: revocation is reported only as far as the
 * file embeds it.
 */
export type SignatureReport = SignatureEntry;
export type VerifyReport = FileReport;

const revocationArchival = "1.2.840.113583.1.1.8";

/**
 * Checks every signature of a PDF and writes report.json (also the result's `report`): integrity (the signed bytes against the CMS),
 * coverage (the whole file, or later revisions and whether what they change is allowed), validity at the
 * signing time, the chain to Debian's trust store and the caller's roots, and embedded revocation data.
 * A file without signatures gives a report with none.
 */
/** The report's download name; the job shows the same report as its `verification`. */
const reportName = "report.json";

export function verifySignatures(
  inputs: VerifyInputs,
  _options: Record<string, never>,
  ctx: EngineContext,
): Promise<EngineResult & { report: VerifyReport }> {
  const name = displayName(inputs.pdf.name);
  return runOperation(ctx, name, async () => {
    // The file as it came, never a repaired copy: a rebuilt file would no longer be what was signed.
    const { probe } = await probeSource(inputs.pdf);
    if (!probe.opened) {
      throw new JobFailure(
        "invalid_input",
        `${name} could not be read as a PDF, so its signatures cannot be checked.`,
      );
    }
    const file = new Uint8Array(await readFile(inputs.pdf.path));
    const uploaded = await Promise.all(inputs.roots.map((root) => readFile(root.path)));
    const mupdf = await loadMupdf();
    const found = signaturesIn(mupdf, file);
    const certification = found.find((signature) => signature.certification !== undefined)?.certification;
    const signatures: SignatureReport[] = [];
    for (const [index, signature] of found.entries()) {
      signatures.push(await reportOn(mupdf, file, signature, uploaded, certification));
      reportProgress(ctx, 0.1 + (0.8 * (index + 1)) / Math.max(found.length, 1));
    }
    const report: VerifyReport = { file: name, signatures };
    const output = join(await freshDir(ctx.workDir, "verify"), reportName);
    await writeFile(output, `${JSON.stringify(report, null, 2)}\n`);
    return {
      outputs: [{ path: output, name: reportName, contentType: "application/json" }],
      engine: "pkijs+mupdf",
      warnings: [],
      report,
    };
  });
}

function signaturesIn(mupdf: MupdfModule, file: Uint8Array): SignatureInFile[] {
  const doc = new mupdf.PDFDocument(file.slice());
  try {
    return signaturesInFile(doc);
  } finally {
    doc.destroy();
  }
}

async function reportOn(
  mupdf: MupdfModule,
  file: Uint8Array,
  signature: SignatureInFile,
  uploadedRoots: Uint8Array[],
  certification: 1 | 2 | 3 | undefined,
): Promise<SignatureReport> {
  const integrity = await checkIntegrity(file, signature);
  const signedEnd = signature.byteRange ? signature.byteRange[2] + signature.byteRange[3] : 0;
  const wholeFile = integrity.intact && signedEnd === file.length;
  const revisions =
    integrity.intact && !wholeFile ? laterRevisions(mupdf, file, signedEnd, allowedKinds(certification)) : [];
  const claimed = signature.claimedTime === undefined ? undefined : instantOf(signature.claimedTime);
  const stamp = await timestampOf(integrity);
  const signingTime = new Date(stamp?.time ?? claimed ?? Date.now());
  const signer = integrity.signer;
  const certificate = signer === undefined ? null : validityOf(signer, signingTime);
  const carried = (integrity.signedData?.certificates ?? []).filter(
    (entry): entry is pkijs.Certificate => entry instanceof pkijs.Certificate,
  );
  const chain =
    signer === undefined
      ? { trusted: false, path: [], problem: "the signature names no certificate it carries" }
      : await checkChain(signer, carried, await candidateRoots(carried, uploadedRoots), signingTime);
  const valid =
    integrity.intact &&
    revisions.every((revision) => revision.allowed) &&
    (certificate?.validAtSigningTime ?? false) &&
    chain.trusted &&
    stamp?.valid !== false;
  return {
    fieldName: signature.fieldName,
    subFilter: signature.subFilter ?? null,
    digestAlgorithm: integrity.digestAlgorithm ?? null,
    signer:
      signer === undefined
        ? null
        : {
            subject: subjectOf(signer),
            issuer: issuerOf(signer),
            serialNumber: Buffer.from(signer.serialNumber.valueBlock.valueHexView).toString("hex"),
          },
    signingTime: {
      claimed: claimed === undefined ? null : new Date(claimed).toISOString(),
      timestamp: stamp?.time === undefined ? null : new Date(stamp.time).toISOString(),
    },
    reason: signature.reason ?? null,
    location: signature.location ?? null,
    integrity: { valid: integrity.intact, problem: integrity.problem ?? null },
    coverage: {
      wholeFile,
      signedBytes: signature.byteRange ? signature.byteRange[1] + signature.byteRange[3] : 0,
      fileBytes: file.length,
      laterRevisions: revisions.map((revision) => ({
        endsAt: revision.end,
        changes: revision.changes,
        allowed: revision.allowed,
      })),
    },
    certification: signature.certification === undefined ? null : { permissions: signature.certification },
    certificate,
    chain: { trusted: chain.trusted, path: chain.path, problem: chain.problem ?? null },
    timestamp: { present: stamp !== undefined, valid: stamp?.valid ?? null },
    revocation: { embedded: embedsRevocation(file, integrity), fetched: false },
    valid,
  };
}

function validityOf(certificate: pkijs.Certificate, when: Date): SignatureReport["certificate"] {
  const notBefore = certificate.notBefore.value;
  const notAfter = certificate.notAfter.value;
  return {
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
    validAtSigningTime: when >= notBefore && when <= notAfter,
  };
}

/** The signature time-stamp (PAdES B-T): its time, and whether the TSA's signed token stamps this signature's value. */
async function timestampOf(
  integrity: Integrity,
): Promise<{ time: number | undefined; valid: boolean } | undefined> {
  const signerInfo = integrity.signedData?.signerInfos[0];
  const attribute = signerInfo?.unsignedAttrs?.attributes.find(
    (entry) => entry.type === oids.signatureTimeStampToken,
  );
  const value = attribute?.values[0];
  if (signerInfo === undefined || value === undefined) return undefined;
  try {
    const token = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: value }).content });
    const content = token.encapContentInfo.eContent;
    if (content === undefined) return { time: undefined, valid: false };
    const info = pkijs.TSTInfo.fromBER(content.valueBlock.valueHexView);
    // Given the stamped data (the signature value), PKI.js checks the token's imprint against it as well as
    // the TSA's signature over the TSTInfo.
    const stampedValue = toArrayBuffer(new Uint8Array(signerInfo.signature.valueBlock.valueHexView));
    const signedByTsa = await token.verify({
      signer: 0,
      data: stampedValue,
      checkChain: false,
      extendedMode: true,
    });
    const valid = signedByTsa.signatureVerified === true;
    return { time: info.genTime.getTime(), valid };
  } catch {
    return { time: undefined, valid: false };
  }
}

/** A /DSS in the file, revocation values in the CMS (Adobe's archival attribute), or CRLs it carries. */
function embedsRevocation(file: Uint8Array, integrity: Integrity): boolean {
  const signed = integrity.signedData;
  const attributes = signed?.signerInfos[0]?.signedAttrs?.attributes ?? [];
  if (attributes.some((attribute) => attribute.type === revocationArchival)) return true;
  if ((signed?.crls?.length ?? 0) > 0) return true;
  return Buffer.from(file).includes("/DSS");
}
