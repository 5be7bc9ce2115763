import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { protect } from "../src/index.js";
import { context, corpus, openWithMupdf, tool } from "./helpers.js";

const input = corpus("general/samplefiles_pdflatex-outline.pdf", "contract.pdf");

async function withPassword(command: string, path: string, password: string, workDir: string) {
  const file = join(workDir, "password.txt");
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return tool("qpdf", [command, `--password-file=${file}`, path]);
}

const showEncryption = (path: string, password: string, workDir: string) =>
  withPassword("--show-encryption", path, password, workDir);

describe("protect", () => {
  it("encrypts with AES-256 R6; only the user password opens it; permissions as asked", async () => {
    const ctx = await context();
    const result = await protect(
      input,
      { userPassword: "open sesame", allowPrinting: true, allowCopying: false, allowEditing: false },
      ctx,
    );
    const path = result.outputs[0]?.path ?? "";
    expect(result.outputs[0]?.name).toBe("contract.pdf");
    expect((await tool("qpdf", ["--requires-password", path])).code).toBe(0);
    const shown = await showEncryption(path, "open sesame", ctx.workDir);
    expect(shown.stdout).toMatch(/^R = 6$/m);
    expect(shown.stdout).toMatch(/stream encryption method: AESv3/);
    expect(shown.stdout).toMatch(/file encryption method: AESv3/);
    // No owner password given: a random one, so the user password opens the file as user only.
    expect(shown.stdout).toMatch(/Supplied password is user password/);
    expect(shown.stdout).toMatch(/print high resolution: allowed/);
    expect(shown.stdout).toMatch(/extract for any purpose: not allowed/);
    expect(shown.stdout).toMatch(/modify anything: not allowed/);
    expect(shown.stdout).toMatch(/modify annotations: not allowed/);
    expect(shown.stdout).toMatch(/modify forms: not allowed/);
    expect((await withPassword("--show-npages", path, "wrong", ctx.workDir)).code).toBe(2);
    expect((await withPassword("--show-npages", path, "open sesame", ctx.workDir)).stdout.trim()).toBe("4");

    const doc = await openWithMupdf(path);
    try {
      expect(doc.needsPassword()).toBe(true);
      expect(doc.authenticatePassword("open sesame")).not.toBe(0);
      expect(doc.countPages()).toBe(4);
    } finally {
      doc.destroy();
    }
  });

  it("sets the opposite permissions and the given owner password", async () => {
    const ctx = await context();
    const result = await protect(
      input,
      {
        userPassword: "u",
        ownerPassword: "the owner",
        allowPrinting: false,
        allowCopying: true,
        allowEditing: true,
      },
      ctx,
    );
    const path = result.outputs[0]?.path ?? "";
    const shown = await showEncryption(path, "u", ctx.workDir);
    expect(shown.stdout).toMatch(/print high resolution: not allowed/);
    expect(shown.stdout).toMatch(/print low resolution: not allowed/);
    expect(shown.stdout).toMatch(/extract for any purpose: allowed/);
    expect(shown.stdout).toMatch(/modify anything: allowed/);
    expect(shown.stdout).toMatch(/modify annotations: allowed/);
    expect((await showEncryption(path, "the owner", ctx.workDir)).stdout).toMatch(
      /Supplied password is owner password/,
    );
  });

  it("SASLprep-normalises the password, as PDF 2.0 readers do", async () => {
    const ctx = await context();
    const result = await protect(
      input,
      { userPassword: "S\u00aaSL\u00adprep", allowPrinting: true, allowCopying: true, allowEditing: true },
      ctx,
    );
    const path = result.outputs[0]?.path ?? "";
    expect((await withPassword("--show-npages", path, "SaSLprep", ctx.workDir)).stdout.trim()).toBe("4");
  });
});
