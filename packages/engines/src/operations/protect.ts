import { join } from "node:path";
import { countPages, encryptionOf, withPdf } from "../mupdf/document.js";
import { displayName, pdfNameLike } from "../names.js";
import { badOutput, runOperation } from "../operation.js";
import { normalisedPassword, randomOwnerPassword } from "../passwords.js";
import { qpdf } from "../qpdf.js";
import { needsRepair, openSource } from "../source.js";
import { type EngineContext, type EngineInput, type EngineResult, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";

export interface ProtectOptions {
  userPassword: string;
  /** Omitted: a random one, so nobody can lift the permissions. */
  ownerPassword?: string;
  allowPrinting: boolean;
  allowCopying: boolean;
  allowEditing: boolean;
}

/** AES-256 (R6) encryption with permissions, by qpdf; the passwords travel in a 0600 job file. */
export async function protect(
  input: EngineInput,
  options: ProtectOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const source = await openSource(input, scratchDir, ctx.signal);
    const output = join(await freshDir(ctx.workDir, "protect"), "protected.pdf");
    const userPassword = normalisedPassword(options.userPassword);
    const ownerPassword = normalisedPassword(options.ownerPassword ?? randomOwnerPassword());
    const job = {
      inputFile: source.path,
      outputFile: output,
      encrypt: {
        userPassword,
        ownerPassword,
        "256bit": {
          print: options.allowPrinting ? "full" : "none",
          extract: options.allowCopying ? "y" : "n",
          modify: options.allowEditing ? "all" : "none",
        },
      },
    };
    const outcome = await qpdf(["--job-json-file={{job}}"], {
      signal: ctx.signal,
      secrets: { dir: scratchDir, files: { job: JSON.stringify(job) } },
    });
    if (!outcome.ok) throw needsRepair(name, outcome.stderr);
    await requireEncrypted(output, userPassword, source.pages, name);
    const warnings = [...source.warnings];
    if (ownerPassword === userPassword) {
      warnings.push(
        "The owner password equals the user password, so anyone who opens the file can also lift its restrictions.",
      );
    }
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine: "qpdf",
      warnings,
    };
  });
}

/** MuPDF confirms the file is AES-256 R6, opens only with the user password, and kept every page. */
async function requireEncrypted(
  path: string,
  userPassword: string,
  pages: number,
  fileName: string,
): Promise<void> {
  const problem = await withPdf(path, (doc) => {
    const encryption = encryptionOf(doc) ?? "none";
    if (!/R6/.test(encryption) || !/AES/.test(encryption)) return `encryption is ${encryption}`;
    if (userPassword !== "" && !doc.needsPassword()) return "it opens without the password";
    if (doc.needsPassword() && doc.authenticatePassword(userPassword) === 0)
      return "the password does not open it";
    const seen = countPages(doc);
    return seen === pages ? undefined : `it has ${seen ?? "no readable"} pages instead of ${pages}`;
  });
  if (problem !== undefined) throw badOutput(fileName, problem);
}
