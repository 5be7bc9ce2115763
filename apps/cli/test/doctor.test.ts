import { spawnSync } from "node:child_process";
import { readdir, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { queuesOfClass } from "@octavo/contracts";
import { createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const launcher = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "octavo.mjs");

interface Entry {
  name: string;
  found: boolean;
  required: boolean;
  requiredBy?: string[];
}

/** The machine's environment without a single OCTAVO_* setting, as in a role image. */
function withoutSettings(path: string): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => !entry[0].startsWith("OCTAVO_") && entry[1] !== undefined,
    ),
  );
  return { ...env, PATH: path };
}

describe("octavo doctor for one role", () => {
  // A working directory doctor may not leave anything in (loadConfig would create ./data/secret.key).
  let cwd: { path: string; dispose(): Promise<void> };
  // A PATH with the worker-pdf image's programs only: no LibreOffice, Chromium, OCRmyPDF or Tesseract.
  let pdfTools: { path: string; dispose(): Promise<void> };

  function doctor(path: string, ...args: string[]) {
    const result = spawnSync(process.execPath, [launcher, "doctor", ...args], {
      cwd: cwd.path,
      env: withoutSettings(path),
      encoding: "utf8",
      timeout: 60_000,
    });
    let report: Entry[] = [];
    try {
      report = JSON.parse(result.stdout) as Entry[];
    } catch {
      // A usage error prints no report.
    }
    const entry = (name: string) => report.find((candidate) => candidate.name === name);
    return { status: result.status, stderr: result.stderr, report, entry };
  }

  beforeAll(async () => {
    cwd = await createTempDir("octavo-doctor-cwd-");
    pdfTools = await createTempDir("octavo-doctor-path-");
    for (const program of ["qpdf", "gs", "pdfinfo", "prlimit", "openssl"])
      await symlink(join("/usr/bin", program), join(pdfTools.path, program));
  });
  afterAll(async () => {
    await cwd?.dispose();
    await pdfTools?.dispose();
  });

  it("passes for the PDF queues where only their programs are installed, and names who needs what", () => {
    const pdf = doctor(pdfTools.path, "--queues", "merge,split=4,rotate,protect,unlock,repair");
    expect(pdf.status, pdf.stderr).toBe(0);
    expect(pdf.entry("node")).toMatchObject({ found: true, required: true });
    expect(pdf.entry("qpdf")).toMatchObject({ found: true, required: true });
    expect(pdf.entry("qpdf")?.requiredBy).toEqual([
      "merge",
      "split",
      "rotate",
      "repair",
      "protect",
      "unlock",
    ]);
    expect(pdf.entry("ghostscript")).toMatchObject({ found: true, required: true, requiredBy: ["repair"] });
    // Reported, but not this role's: their absence fails nothing.
    for (const name of ["libreoffice", "chromium", "ocrmypdf", "tesseract", "redis-server"])
      expect(pdf.entry(name), name).toMatchObject({ found: false, required: false });
  });

  it("passes for issue 19's queues with the PDF tools alone; image-to-pdf needs no program", () => {
    const extras = doctor(
      pdfTools.path,
      "--queues",
      "pdf-to-image,image-to-pdf,watermark,page-numbers,flatten,metadata",
    );
    expect(extras.status, extras.stderr).toBe(0);
    expect(extras.entry("qpdf")?.requiredBy).toEqual([
      "pdf-to-image",
      "watermark",
      "page-numbers",
      "flatten",
      "metadata",
    ]);
    expect(extras.entry("ghostscript")).toMatchObject({ required: false });
  });

  it("fails, naming the missing engine and its queues, when a queue's program is not installed", () => {
    const office = doctor(pdfTools.path, "--queues", "merge,word-to-pdf=2,excel-to-pdf");
    expect(office.status).toBe(1);
    expect(office.entry("libreoffice")).toMatchObject({
      found: false,
      required: true,
      requiredBy: ["word-to-pdf", "excel-to-pdf"],
    });
    expect(office.stderr).toContain("libreoffice is missing (needed by word-to-pdf, excel-to-pdf)");
    const ocr = doctor(pdfTools.path, "--queues", "ocr=1");
    expect(ocr.status).toBe(1);
    expect(ocr.entry("tesseract language eng (eng.traineddata)")).toMatchObject({
      found: false,
      required: true,
    });
    // Without --queues the machine is the single one of `octavo start`: everything is required.
    expect(doctor(pdfTools.path).status).toBe(1);
  });

  it("requires nothing but node on an API node or a webhook worker", () => {
    for (const args of [["--api"], ["--queues", "webhooks=20"]]) {
      const result = doctor(pdfTools.path, ...args);
      expect(result.status, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(
        result.report.filter((entry) => entry.required).map((entry) => entry.name),
        args.join(" "),
      ).toEqual(["node"]);
    }
  });

  it("requires OCR's languages where OCR runs, on this machine with every engine", () => {
    const heavy = doctor(
      process.env.PATH ?? "",
      "--queues",
      "ocr=1,compress=2,pdf-to-pdfa=2,pdf-to-word=1,pdf-to-powerpoint=1,pdf-to-excel=1",
    );
    expect(heavy.status, heavy.stderr).toBe(0);
    expect(heavy.entry("tesseract language jpn (jpn.traineddata)")).toMatchObject({
      found: true,
      required: true,
    });
    expect(heavy.entry("pdftotext")).toMatchObject({
      found: true,
      required: true,
      requiredBy: ["pdf-to-pdfa"],
    });
    expect(heavy.entry("libreoffice")?.required).toBe(false);
  });

  it("checks a worker class by its name, as the images and manifests run it (--class)", () => {
    // The pdf class's image: its programs alone suffice, and every operation of the class needs qpdf.
    const pdf = doctor(pdfTools.path, "--class", "pdf");
    expect(pdf.status, pdf.stderr).toBe(0);
    expect(pdf.entry("qpdf")?.requiredBy).toEqual(queuesOfClass("pdf").map((queue) => queue.name));
    // The office class needs LibreOffice and Chromium, which this PATH lacks.
    const office = doctor(pdfTools.path, "--class", "office");
    expect(office.status).toBe(1);
    expect(office.entry("libreoffice")).toMatchObject({ required: true, found: false });
    expect(office.entry("chromium")).toMatchObject({ required: true, found: false });
    expect(doctor(pdfTools.path, "--class", "webhooks").status).toBe(0);

    const unknown = doctor(pdfTools.path, "--class", "gpu");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(
      'unknown worker class "gpu"; the classes are pdf, heavy, office, pipeline, webhooks',
    );
    const both = doctor(pdfTools.path, "--class", "pdf", "--queues", "merge");
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("give --queues or --class, not both");
  });

  it("takes the worker's --queues syntax, says what is wrong with it, and writes nothing", async () => {
    const typo = doctor(pdfTools.path, "--queues", "merge,mergee");
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("unknown queue mergee; available: merge,");
    expect(doctor(pdfTools.path, "--queues", "merge=0").stderr).toMatch(/whole number ≥ 1/);
    // No settings were read, so no data directory or secret key was made.
    expect(await readdir(cwd.path)).toEqual([]);
  });
});
