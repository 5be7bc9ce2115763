import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure } from "../errors.js";
import { countPages, encryptionOf, type PdfDocument, withPdf } from "../mupdf/document.js";
import type { MupdfProbe } from "../mupdf/probe.js";
import { estimateTextChars } from "../mupdf/text.js";
import { damageWarning, displayName, pdfNameLike } from "../names.js";
import { badOutput, runOperation } from "../operation.js";
import { passwordCandidates } from "../passwords.js";
import { qpdf, qpdfIsEncrypted, qpdfPageCount } from "../qpdf.js";
import { beyondRepair, probePdf, protectedPayload } from "../source.js";
import { type EngineContext, type EngineInput, type EngineResult, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";

export interface UnlockOptions {
  /** The document password; empty for files with only permission restrictions. */
  password: string;
}

/** What the decrypted file must match: MuPDF's own view of the document opened with the password. */
interface Reference {
  password: string;
  pages: number | undefined;
  /** Counted on first use: extracting text is the expensive part of the check. */
  textChars: () => Promise<number>;
}

/**
 * Removes the password and restrictions. qpdf decrypts (password in a 0600 file); MuPDF checks the
 * password first, since qpdf misses the encryption of some damaged files, and takes over when qpdf's
 * result lost pages or text. An unencrypted file comes back byte for byte.
 */
export async function unlock(
  input: EngineInput,
  options: UnlockOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const probe = await probePdf(input);
    const output = join(await freshDir(ctx.workDir, "unlock"), "unlocked.pdf");
    const result = (engine: string, warnings: string[]): EngineResult => ({
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine,
      warnings,
    });

    if (!(await isEncrypted(probe, input.path, ctx.signal))) {
      if (probe.opened && probe.encryptedPayload !== undefined)
        throw protectedPayload(name, probe.encryptedPayload);
      // Unchanged is only right for a PDF: something no parser reads is not "a file without a password".
      if (!probe.opened && !(await qpdfPageCount(input.path, { signal: ctx.signal })).ok)
        throw beyondRepair(name);
      await copyFile(input.path, output);
      return result("none", [`${name} is not encrypted; it is returned unchanged.`]);
    }
    if (!probe.opened) {
      // MuPDF cannot read the file at all; qpdf alone decides, and MuPDF must at least open its output.
      for (const password of passwordCandidates(options.password)) {
        const decrypted = await decryptWithQpdf(input.path, output, password, scratchDir, ctx.signal, name);
        if (decrypted === "wrong password") continue;
        if (decrypted !== "failed" && (await matches(output, undefined, false, ctx.signal)))
          return result("qpdf", decrypted);
        throw beyondRepair(name);
      }
      throw refusedPassword(name, options.password);
    }
    const reference = await referenceFor(input.path, options.password, ctx.signal);
    if (reference === undefined) throw refusedPassword(name, options.password);
    const decrypted = await decryptWithQpdf(
      input.path,
      output,
      reference.password,
      scratchDir,
      ctx.signal,
      name,
    );
    // Text goes missing where a file had to be reconstructed, so the text is compared only then.
    const reconstructed = probe.repaired || (Array.isArray(decrypted) && decrypted.length > 0);
    if (Array.isArray(decrypted) && (await matches(output, reference, reconstructed, ctx.signal))) {
      return result("qpdf", decrypted);
    }
    // qpdf failed, or lost pages or text (it misses the encryption of some damaged files): MuPDF decrypts.
    await decryptWithMupdf(input.path, output, reference.password);
    if (await matches(output, reference, true, ctx.signal)) return result("mupdf", []);
    throw badOutput(name, "the decrypted file lost pages or text");
  });
}

async function isEncrypted(
  probe: MupdfProbe,
  path: string,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (probe.opened) return probe.encryption !== undefined;
  return qpdfIsEncrypted(path, { signal });
}

/** Opens the file in MuPDF with each form of the password; undefined when none works. */
async function referenceFor(
  path: string,
  password: string,
  signal: AbortSignal | undefined,
): Promise<Reference | undefined> {
  const accepted = await withPdf(path, (doc) => {
    // Files with only an owner password open as they are; the given password then does not matter.
    const tries = doc.needsPassword() ? passwordCandidates(password) : [""];
    const found = tries.find((candidate) => doc.authenticatePassword(candidate) !== 0);
    return found === undefined ? undefined : { password: found, pages: countPages(doc) };
  });
  if (accepted === undefined) return undefined;
  let counted: Promise<number> | undefined;
  const textChars = (): Promise<number> => {
    counted ??= withPdf(path, (doc) => {
      if (doc.needsPassword()) doc.authenticatePassword(accepted.password);
      return accepted.pages === undefined ? 0 : estimateTextChars(doc, accepted.pages, signal);
    });
    return counted;
  };
  return { ...accepted, textChars };
}

type QpdfDecrypt = string[] | "wrong password" | "failed";

async function decryptWithQpdf(
  source: string,
  output: string,
  password: string,
  scratchDir: string,
  signal: AbortSignal | undefined,
  name: string,
): Promise<QpdfDecrypt> {
  // --password-file reads one line; a password with a line break goes in a job file instead.
  const secrets = { dir: scratchDir, files: { password } };
  const outcome = /[\r\n]/.test(password)
    ? await qpdf(["--job-json-file={{job}}"], {
        signal,
        secrets: {
          dir: scratchDir,
          files: { job: JSON.stringify({ inputFile: source, password, outputFile: output, decrypt: "" }) },
        },
      })
    : await qpdf(["--decrypt", "--password-file={{password}}", source, output], { signal, secrets });
  if (outcome.ok) return outcome.warnings.length > 0 ? [damageWarning(name, "qpdf", outcome.warnings)] : [];
  return /invalid password/i.test(outcome.stderr) ? "wrong password" : "failed";
}

async function decryptWithMupdf(source: string, output: string, password: string): Promise<void> {
  await withPdf(source, (doc) => {
    if (doc.needsPassword()) doc.authenticatePassword(password);
    doc.save(output, "decrypt");
  });
}

/**
 * The output opens unencrypted in MuPDF with the reference's pages (and, with `compareText`, at least
 * 90 % of its text), and qpdf reads it too.
 */
async function matches(
  output: string,
  reference: Reference | undefined,
  compareText: boolean,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const expectedText = reference !== undefined && compareText ? await reference.textChars() : 0;
  const check = (doc: PdfDocument): boolean => {
    if (encryptionOf(doc) !== undefined) return false;
    const pages = countPages(doc);
    if (pages === undefined || pages === 0) return false;
    if (reference?.pages !== undefined && pages !== reference.pages) return false;
    return expectedText === 0 || estimateTextChars(doc, pages, signal) >= expectedText * 0.9;
  };
  try {
    const opened = await withPdf(output, check);
    // qpdf is the second parser for MuPDF's output, and checks qpdf's output once more.
    return opened && (await qpdfPageCount(output, { signal })).ok;
  } catch {
    // An output MuPDF cannot open is simply not a match.
    return false;
  }
}

function refusedPassword(name: string, password: string): JobFailure {
  return password === ""
    ? new JobFailure(
        "password_required",
        `${name} needs its password to open; give it in the password option.`,
      )
    : new JobFailure("wrong_password", `The password does not open ${name}; check it and try again.`);
}
