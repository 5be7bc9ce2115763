import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type CorpusEntry, readManifest } from "@octavo/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { unlock } from "../src/index.js";
import { context, corpus, failureOf, openWithMupdf, qpdfPages, textChars, tool } from "./helpers.js";

let encrypted: CorpusEntry[] = [];
beforeAll(async () => {
  encrypted = readManifest().filter((entry) => entry.path.startsWith("encrypted/"));
});

/** An independent decrypt by MuPDF, the reference for how much text the file holds. */
async function referenceText(path: string, password: string, workDir: string): Promise<number> {
  const doc = await openWithMupdf(path);
  const out = join(workDir, `reference-${Math.random().toString(36).slice(2)}.pdf`);
  try {
    if (doc.needsPassword()) expect(doc.authenticatePassword(password)).not.toBe(0);
    doc.save(out, "decrypt");
  } finally {
    doc.destroy();
  }
  return textChars(out);
}

const irm = "encrypted/tika_testMicrosoftIRMServices.pdf";

describe("unlock", () => {
  it("has the corpus it is tested on", () => {
    expect(encrypted.length).toBe(29);
  });

  it("decrypts every file of encrypted/ whose password is known, keeping pages and text", async () => {
    const ctx = await context();
    const known = encrypted.filter((entry) => entry.userPassword !== undefined);
    expect(known.length).toBe(27);
    for (const entry of known) {
      const input = corpus(entry.path);
      const password = entry.userPassword ?? "";
      const result = await unlock(input, { password }, ctx);
      const output = result.outputs[0]?.path ?? "";
      expect(result.outputs[0]?.name, entry.path).toBe(input.name);
      expect((await tool("qpdf", ["--is-encrypted", output])).code, entry.path).toBe(2);
      expect(await qpdfPages(output), entry.path).toBe(entry.pages);
      const reference = await referenceText(input.path, password, ctx.workDir);
      const kept = await textChars(output);
      expect(kept, `${entry.path}: ${kept} of ${reference} characters`).toBeGreaterThanOrEqual(
        reference * 0.9,
      );
    }
  });

  it("falls back to MuPDF where qpdf silently loses the text of an encrypted, damaged file", async () => {
    const result = await unlock(
      corpus("encrypted/pdfjs_issue15893_reduced.pdf"),
      { password: "test" },
      await context(),
    );
    expect(result.engine).toBe("mupdf");
    expect((await tool("pdftotext", [result.outputs[0]?.path ?? "", "-"])).stdout).toContain("Issue 15893");
  });

  it("accepts the password as typed where AES-256 needs its SASLprep form", async () => {
    const result = await unlock(
      corpus("encrypted/pdfjs_saslprep-r6.pdf"),
      { password: "S\u00aaSL\u00adprep" },
      await context(),
    );
    expect((await tool("qpdf", ["--is-encrypted", result.outputs[0]?.path ?? ""])).code).toBe(2);
  });

  it("opens owner-password-only files with the empty password", async () => {
    for (const file of [
      "encrypted/qpdf_enc-XI-R6_V5_O-master.pdf",
      "encrypted/cabinet_encryption_nocopy.pdf",
    ]) {
      const result = await unlock(corpus(file), { password: "" }, await context());
      expect((await tool("qpdf", ["--is-encrypted", result.outputs[0]?.path ?? ""])).code, file).toBe(2);
    }
  });

  it("refuses a wrong password with wrong_password", async () => {
    for (const file of ["encrypted/qpdf_c-r6-in.pdf", "encrypted/pypdf_r2-user-password.pdf"]) {
      const failure = await failureOf(unlock(corpus(file), { password: "not it" }, await context()));
      expect(failure.code, file).toBe("wrong_password");
    }
  });

  it("asks for the password of a file whose password is unknown", async () => {
    const file = corpus("encrypted/cabinet_encryption_openpassword.pdf");
    expect((await failureOf(unlock(file, { password: "" }, await context()))).code).toBe("password_required");
    expect((await failureOf(unlock(file, { password: "guess" }, await context()))).code).toBe(
      "wrong_password",
    );
  });

  it("explains that a Microsoft IRM wrapper cannot be unlocked", async () => {
    const failure = await failureOf(unlock(corpus(irm), { password: "" }, await context()));
    expect(failure.code).toBe("conversion_failed");
    expect(failure.message).toMatch(/MicrosoftIRMServices/);
    expect(failure.message).toMatch(/cannot be removed/);
  });

  it("returns an unencrypted file byte for byte", async () => {
    const input = corpus("general/samplefiles_pdflatex-outline.pdf");
    const result = await unlock(input, { password: "anything" }, await context());
    expect(result.engine).toBe("none");
    expect(Buffer.compare(await readFile(result.outputs[0]?.path ?? ""), await readFile(input.path))).toBe(0);
  });
});
