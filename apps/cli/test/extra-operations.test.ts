import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { corpusPath, createTempDir } from "@octavo/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { imageFixture, imageFixtures } from "./support/image-fixtures.js";
import {
  formsAndAnnotations,
  pageCount,
  pdfInfo,
  pdfText,
  qpdfCheck,
  visiblePageSizes,
  xmpOf,
} from "./support/pdf-checks.js";
import { type Stack, startStack } from "./support/stack.js";

// Issue 19's six operations end to end, as a client meets them: the endpoint, the job's outputs and
// credits, each output checked with a tool that is not the engine that wrote it (qpdf, poppler,
// sharp). The engines' packages (@octavo/images, @octavo/edit) test every behaviour in depth.

const outline = corpusPath("general/samplefiles_pdflatex-outline.pdf"); // 4 pages
const schools = corpusPath("tables/tabula_schools.pdf"); // 5 pages, /Rotate 90
const form = corpusPath("general/samplefiles_libreoffice-form.pdf");
const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");

describe("the operations beyond the spec, through the API", () => {
  let stack: Stack;
  let client: Client;
  let scratch: { path: string; dispose(): Promise<void> };

  beforeAll(async () => {
    stack = await startStack({ database: "sqlite", redis: "supervised" });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    scratch = await createTempDir("octavo-extras-");
  });
  afterAll(async () => {
    await stack?.close();
    await scratch?.dispose();
  });

  /** Posts, expects 202 with the credits, waits, and downloads every output of a done job. */
  async function run(
    path: string,
    files: { path: string; name?: string }[],
    options: unknown,
    credits: number,
  ): Promise<{ job: JobBody; outputs: string[] }> {
    const created = await client.postFiles(path, files, options);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.credits).toBe(credits);
    const job = await client.waitForJob(String(created.body.id), 240_000);
    const outputs: string[] = [];
    for (const output of job.outputs ?? []) {
      const download = await client.download(String(output.url));
      expect(download.status).toBe(200);
      expect(download.headers.get("content-type")).toBe(output.contentType);
      const file = join(scratch.path, `${job.id}-${output.name}`);
      await writeFile(file, download.bytes);
      outputs.push(file);
    }
    return { job, outputs };
  }

  it("renders the listed pages as images of the page's visible size × dpi / 72, rotation applied", async () => {
    const { job, outputs } = await run(
      "/v1/convert/pdf-to-image",
      [{ path: schools, name: "schools.pdf" }],
      { format: "jpeg", dpi: 100, pages: "1-2", quality: 80 },
      2,
    );
    expect(job.status, job.message).toBe("done");
    expect(job.outputs?.map((output) => [output.name, output.contentType])).toEqual([
      ["schools-p1.jpg", "image/jpeg"],
      ["schools-p2.jpg", "image/jpeg"],
    ]);
    const [page] = await visiblePageSizes(schools);
    const { format, width, height } = await sharp(outputs[0]).metadata();
    expect(format).toBe("jpeg");
    // Page 1 is turned 90°: a landscape image of a portrait Letter page.
    expect(width).toBeCloseTo(((page?.width ?? 0) * 100) / 72, -1);
    expect(height).toBeCloseTo(((page?.height ?? 0) * 100) / 72, -1);
    expect(width).toBeGreaterThan(height ?? 0);
  });

  it("refuses a render beyond the pixel caps before drawing anything", async () => {
    const { job } = await run(
      "/v1/convert/pdf-to-image",
      [{ path: corpusPath("general/ocrmypdf_enormous.pdf") }],
      { dpi: 600 },
      2,
    );
    expect(job).toMatchObject({ status: "failed", error: "invalid_input" });
    expect(job.message).toMatch(/pixels/);
  });

  it("makes one page per image, in the order sent, JPEG data embedded as it is", async () => {
    const jpeg = imageFixture("datagov-rgb.jpg");
    const png = imageFixture("lo-statusbar-alpha-icc.png");
    const { job, outputs } = await run(
      "/v1/convert/image-to-pdf",
      [{ path: png.path }, { path: jpeg.path }],
      { pageSize: "A4", margin: "small" },
      2,
    );
    expect(job.status, job.message).toBe("done");
    expect(job.outputs).toHaveLength(1);
    const [output = ""] = outputs;
    expect(await qpdfCheck(output)).toBe(0);
    expect(await pageCount(output)).toBe(2);
    const sizes = await visiblePageSizes(output);
    for (const size of sizes) expect(Math.round(Math.min(size.width, size.height))).toBe(595);
    // pdfimages -j writes DCT streams out as they are stored: the page 2 image is the JPEG file itself.
    execFileSync("pdfimages", ["-j", "-f", "2", "-l", "2", output, join(scratch.path, "extracted")]);
    expect(await readFile(join(scratch.path, "extracted-000.jpg"))).toEqual(await readFile(jpeg.path));
  });

  it("stamps real, translucent text over a rotated page, leaving the text underneath", async () => {
    const { job, outputs } = await run(
      "/v1/watermark",
      [{ path: schools }],
      { text: "CONFIDENTIAL", opacity: 0.5, rotation: 0, position: "top-center", pages: "1" },
      1,
    );
    expect(job.status, job.message).toBe("done");
    const [output = ""] = outputs;
    expect(await qpdfCheck(output)).toBe(0);
    const page1 = execFileSync("pdftotext", ["-f", "1", "-l", "1", output, "-"], { encoding: "utf8" });
    const page2 = execFileSync("pdftotext", ["-f", "2", "-l", "2", output, "-"], { encoding: "utf8" });
    expect(page1).toContain("CONFIDENTIAL");
    expect(page2).not.toContain("CONFIDENTIAL");
    const before = execFileSync("pdftotext", ["-f", "1", "-l", "1", schools, "-"], { encoding: "utf8" });
    expect(page1.replace(/\s+/g, "")).toContain(before.replace(/\s+/g, "").slice(0, 200));
  });

  it("numbers the selected pages from start, {total} counting them", async () => {
    const { job, outputs } = await run(
      "/v1/page-numbers",
      [{ path: outline }],
      { format: "Page {n} of {total}", pages: "2-4", start: 10 },
      1,
    );
    expect(job.status, job.message).toBe("done");
    const [output = ""] = outputs;
    expect(await qpdfCheck(output)).toBe(0);
    const text = (page: number) =>
      execFileSync("pdftotext", ["-f", `${page}`, "-l", `${page}`, output, "-"], { encoding: "utf8" });
    expect(text(1)).not.toMatch(/Page \d+ of 3/);
    expect(text(2)).toContain("Page 10 of 3");
    expect(text(4)).toContain("Page 12 of 3");
  });

  it("flattens a filled form into page content with no fields left", async () => {
    const before = await formsAndAnnotations(form);
    expect(before.fields).toBeGreaterThan(0);
    const { job, outputs } = await run("/v1/flatten", [{ path: form }], {}, 1);
    expect(job.status, job.message).toBe("done");
    const [output = ""] = outputs;
    expect(await qpdfCheck(output)).toBe(0);
    expect(await formsAndAnnotations(output)).toEqual({ fields: 0, annotations: [0] });
    const kept = (await pdfText(form)).replace(/\s+/g, "");
    expect((await pdfText(output)).replace(/\s+/g, "")).toContain(kept.slice(0, 40));
  });

  it("writes metadata to the Info dictionary and the XMP packet alike, and removes it all", async () => {
    const set = await run(
      "/v1/metadata",
      [{ path: outline }],
      { title: "Quarterly report — Q3", author: "Zoë Adams", subject: "Figures", keywords: ["q3", "report"] },
      1,
    );
    expect(set.job.status, set.job.message).toBe("done");
    const [output = ""] = set.outputs;
    expect(await qpdfCheck(output)).toBe(0);
    const info = await pdfInfo(output);
    expect(info).toMatchObject({ Title: "Quarterly report — Q3", Author: "Zoë Adams", Subject: "Figures" });
    expect(info.Keywords).toMatch(/q3.*report/);
    const xmp = await xmpOf(output);
    expect(xmp).toContain("Quarterly report — Q3");
    expect(xmp).toContain("Zoë Adams");

    const removed = await run("/v1/metadata", [{ path: output, name: "report.pdf" }], { remove: true }, 1);
    expect(removed.job.status, removed.job.message).toBe("done");
    const [bare = ""] = removed.outputs;
    expect((await pdfInfo(bare)).Title).toBeUndefined();
    expect(await xmpOf(bare)).toBe("");
  });

  it("fails an encrypted input with password_required, charging nothing", async () => {
    const used = async () => (await client.get("/v1/account")).body.creditsUsed;
    const before = await used();
    for (const [path, options] of [
      ["/v1/watermark", { text: "x" }],
      ["/v1/convert/pdf-to-image", {}],
    ] as const) {
      const { job } = await run(path, [{ path: encrypted }], options, path === "/v1/watermark" ? 1 : 2);
      expect(job, path).toMatchObject({ status: "failed", error: "password_required" });
    }
    expect(await used()).toBe(before);
  });

  it("chains the new operations in a pipeline: images → PDF → watermark → numbers → metadata", async () => {
    const [first, second] = imageFixtures().filter((fixture) => fixture.pages === 1);
    if (first === undefined || second === undefined)
      throw new Error("fewer than two one-page image fixtures");
    const created = await client.postFiles(
      "/v1/pipeline",
      [{ path: first.path }, { path: second.path }],
      undefined,
      {
        steps: JSON.stringify([
          { operation: "image-to-pdf", options: { pageSize: "Letter" } },
          { operation: "watermark", options: { text: "SAMPLE", rotation: 0 } },
          { operation: "page-numbers", options: { format: "{n}/{total}" } },
          { operation: "metadata", options: { title: "Scans" } },
        ]),
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.credits).toBe(5);
    const job = await client.waitForJob(String(created.body.id), 240_000);
    expect(job.status, job.message).toBe("done");
    const download = await client.download(String(job.outputs?.[0]?.url));
    const output = join(scratch.path, "pipeline.pdf");
    await writeFile(output, download.bytes);
    expect(await qpdfCheck(output)).toBe(0);
    expect(await pageCount(output)).toBe(2);
    expect((await pdfInfo(output)).Title).toBe("Scans");
    const text = (await pdfText(output)).replace(/\s+/g, "");
    expect(text).toContain("SAMPLE");
    expect(text).toContain("2/2");
  });
});
