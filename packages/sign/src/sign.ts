import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  JobFailure,
  openSource,
  type PdfDocument,
  pdfContentType,
  pdfNameLike,
  reportProgress,
  runOperation,
} from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { type AppearancePlacement, type WidgetGeometry, widgetGeometry } from "./appearance.js";
import { fillByteRange, fillContents, signedParts } from "./byte-range.js";
import { addSignatureTimestamp, digestOf, encodeSignedData, signatureValue, signedData } from "./cms.js";
import { readPkcs12, type SigningIdentity } from "./pkcs12.js";
import {
  entryAt,
  type SignatureEntries,
  type SignatureSlot,
  signatureFields,
  signatureSlot,
  writeSignatureDictionary,
} from "./signature-field.js";
import { checkSigner, commonName, type SigningAlgorithm } from "./signer-checks.js";
import type { TimestampAuthority } from "./timestamp.js";

export interface SignOptions {
  /** The PKCS#12 file's password. */
  certificatePassword: string;
  reason?: string;
  location?: string;
  contactInfo?: string;
  /** Sign this empty signature field, or create a field of this name. */
  fieldName?: string;
  /** A certification signature with these DocMDP permissions. */
  certify?: 1 | 2 | 3;
  /** An RFC 3161 time-stamp server: the signature becomes PAdES B-T. */
  timestampUrl?: string;
  /** A visible signature: where it goes; without it the signature is invisible (unless the field has a box). */
  appearance?: AppearancePlacement;
}

export interface SignInputs {
  pdf: EngineInput;
  /** The signer's PKCS#12 file. */
  certificate: EngineInput;
  /** A PNG or JPEG drawn in a visible signature (a scanned handwritten signature, a seal). */
  image?: EngineInput;
}

/** The engine context, with the outbound policy a time-stamp request goes through. */
export interface SignContext extends EngineContext {
  outbound?: Omit<TimestampAuthority, "url">;
}

/** Room for the CMS beyond a dry run's size: ECDSA signatures vary by a few bytes. */
const contentsSlack = 64;
/** Room for a time-stamp token, which only exists once the signature does; a larger one is retried. */
const timestampRoom = 16 * 1024;

/**
 * Signs a PDF with a PAdES baseline B-B signature (ETSI.CAdES.detached), B-T with a time-stamp server,
 * in an incremental update: the input's bytes stay the output's prefix, so earlier signatures stay
 * valid. The certificate is checked before anything is written; its password and key never leave this
 * process's memory and the 0600 file OpenSSL reads the password from, inside the job's scratch directory.
 */
export function signPdf(inputs: SignInputs, options: SignOptions, ctx: SignContext): Promise<EngineResult> {
  const name = displayName(inputs.pdf.name);
  const certificateName = displayName(inputs.certificate.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const identity = await readPkcs12(
      { path: inputs.certificate.path, name: certificateName, password: options.certificatePassword },
      scratchDir,
      ctx.signal,
    );
    const signingTime = new Date();
    const algorithm = checkSigner(identity, certificateName, signingTime);
    const authority =
      options.timestampUrl === undefined ? undefined : { url: options.timestampUrl, ...ctx.outbound };
    if (authority !== undefined && authority.allowlist === undefined) {
      throw new Error("a time-stamp was asked for, but the engine was given no outbound policy");
    }
    reportProgress(ctx, 0.2);
    const source = await openSource(inputs.pdf, scratchDir, ctx.signal);
    const original = new Uint8Array(await readFile(source.path));
    const image = inputs.image === undefined ? undefined : new Uint8Array(await readFile(inputs.image.path));
    const signer: Signer = {
      identity,
      algorithm,
      authority: authority as TimestampAuthority | undefined,
      signal: ctx.signal,
    };
    const entries: SignatureEntries = {
      contentsBytes: (await dryRunSize(signer)) + contentsSlack + (authority ? timestampRoom : 0),
      signingTime,
      signerName: commonName(identity.certificate),
      reason: options.reason,
      location: options.location,
      contactInfo: options.contactInfo,
      certify: options.certify,
    };
    const look = { name, options, image };
    let signed = await signOnce(original, look, entries, signer);
    if (typeof signed === "number") {
      // A time-stamp token larger than its room: once more, with room for the one just seen.
      signed = await signOnce(original, look, { ...entries, contentsBytes: signed + 1024 }, signer);
    }
    if (typeof signed === "number") throw new Error(`the CMS (${signed} bytes) outgrew its room twice`);
    reportProgress(ctx, 0.9);
    const output = join(await freshDir(ctx.workDir, "sign"), pdfNameLike(inputs.pdf.name));
    await writeFile(output, signed);
    return {
      outputs: [{ path: output, name: pdfNameLike(inputs.pdf.name), contentType: pdfContentType }],
      engine: "pkijs+mupdf",
      warnings: source.warnings,
    };
  });
}

interface Signer {
  identity: SigningIdentity;
  algorithm: SigningAlgorithm;
  authority: TimestampAuthority | undefined;
  signal: AbortSignal | undefined;
}

/** What the signature field is and shows: the options, and the signer's image if one was sent. */
interface Look {
  /** The PDF's name, for messages. */
  name: string;
  options: SignOptions;
  image: Uint8Array | undefined;
}

/** The signed file, or the size the CMS needed when it did not fit in `entries.contentsBytes`. */
async function signOnce(
  original: Uint8Array,
  look: Look,
  entries: SignatureEntries,
  signer: Signer,
): Promise<Uint8Array | number> {
  const prepared = await withSignatureField(original, look, entries);
  const span = fillByteRange(prepared.bytes, original.length, prepared.objectNumber);
  const digest = digestOf(signedParts(prepared.bytes, span), signer.algorithm);
  const cms = await cmsFor(signer, digest);
  return fillContents(prepared.bytes, span, cms) ? prepared.bytes : cms.length;
}

async function cmsFor(signer: Signer, digest: Uint8Array): Promise<Uint8Array> {
  const data = await signedData(signer.identity, signer.algorithm, digest);
  if (signer.authority !== undefined) {
    // Loaded only for B-T: the outbound policy's HTTP client takes a sixth of a second to load.
    const { stampSignature } = await import("./timestamp.js");
    addSignatureTimestamp(data, await stampSignature(signatureValue(data), signer.authority, signer.signal));
  }
  return encodeSignedData(data);
}

/** The CMS's size for this signer without its time-stamp, from a signature over a digest of zeros. */
async function dryRunSize(signer: Signer): Promise<number> {
  const zeros = new Uint8Array(digestOf([], signer.algorithm).length);
  return encodeSignedData(await signedData(signer.identity, signer.algorithm, zeros)).length;
}

/** The input with the signature field, its appearance and dictionary appended as an incremental update. */
async function withSignatureField(
  original: Uint8Array,
  look: Look,
  entries: SignatureEntries,
): Promise<{ bytes: Uint8Array; objectNumber: number }> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument(original);
  try {
    const { options } = look;
    refuseForbiddenSignature(doc, look.name, options);
    const geometry =
      options.appearance === undefined ? undefined : widgetGeometry(mupdf, doc, options.appearance);
    const slot = signatureSlot(
      doc,
      options.fieldName,
      geometry?.pageIndex ?? 0,
      geometry?.rect ?? [0, 0, 0, 0],
    );
    const shown = geometry ?? (slot.created ? undefined : fieldGeometry(slot));
    if (shown !== undefined) {
      // Loaded only for a visible signature: its fonts take a tenth of a second to load.
      const { appearanceStream } = await import("./appearance-stream.js");
      const stream = appearanceStream(mupdf, doc, shown, appearanceLines(entries), look.image);
      const ap = doc.newDictionary();
      ap.put("N", stream);
      slot.widget.put("AP", ap);
    }
    const objectNumber = writeSignatureDictionary(doc, slot, entries);
    // A copy: the buffer lives in MuPDF's memory, which the next job's instance replaces.
    const bytes = doc.saveToBuffer("incremental").asUint8Array().slice();
    return { bytes, objectNumber };
  } finally {
    doc.destroy();
  }
}

/** An existing field with a box is drawn in it as it lies on the page; an empty box stays invisible. */
function fieldGeometry(slot: SignatureSlot): WidgetGeometry | undefined {
  const [x0, y0, x1, y1] = slot.rect;
  if (x1 - x0 < 1 || y1 - y0 < 1) return undefined;
  return {
    pageIndex: slot.pageIndex,
    rect: slot.rect,
    width: x1 - x0,
    height: y1 - y0,
    matrix: [1, 0, 0, 1, 0, 0],
  };
}

/** The text of a visible signature: who signed, when, and why and where when given. */
function appearanceLines(entries: SignatureEntries): string[] {
  const when = entries.signingTime.toISOString().replace("T", " ").slice(0, 19);
  return [
    `Digitally signed by ${entries.signerName}`,
    `Date: ${when} UTC`,
    ...(entries.reason ? [`Reason: ${entries.reason}`] : []),
    ...(entries.location ? [`Location: ${entries.location}`] : []),
  ];
}

/**
 * A certification signature must be the document's first; a document certified with "no changes" (P 1)
 * takes no further signature.
 */
function refuseForbiddenSignature(doc: PdfDocument, name: string, options: SignOptions): void {
  const signed = signatureFields(doc).filter((field) => field.signed);
  if (options.certify !== undefined && signed.length > 0) {
    throw new JobFailure(
      "invalid_input",
      `${name} is signed already, and a certification signature must be a document's first; leave options.certify out to add an approval signature.`,
    );
  }
  const references = entryAt(doc, doc.getTrailer(), "Root", "Perms", "DocMDP", "Reference");
  for (let index = 0; references.isArray() && index < references.length; index += 1) {
    const permissions = entryAt(doc, references.get(index), "TransformParams", "P");
    if (permissions.isNumber() && permissions.asNumber() === 1) {
      throw new JobFailure(
        "invalid_input",
        `${name} is certified with no changes allowed, so another signature would invalidate its certification.`,
      );
    }
  }
}
