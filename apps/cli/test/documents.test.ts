import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusPath, createTempDir, runTool } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { OpenApiDocument } from "./support/openapi-document.js";
import type { Schema } from "./support/schema-values.js";
import { type Stack, startStack } from "./support/stack.js";

/*
 * Issue 37's operations through the real API and workers. Read form and Fill form: the report in the job
 * and as fields.json against the served OpenAPI document, a government form filled and read back by qpdf,
 * the refusals the API makes at once (the options' shape) and the ones only the job can make (the
 * document's fields), and a fill in a pipeline. Split PDF's modes: each mode's options and its refusals.
 * The engines' finer behaviour is tested in packages/edit (forms) and packages/engines (split).
 */

const w9 = fileURLToPath(
  new URL("../../../packages/edit/test/fixtures/forms/irs-fw9-2018.pdf", import.meta.url),
);
const libreOfficeForm = corpusPath("general/samplefiles_libreoffice-form.pdf");
const geoTopo = corpusPath("general/samplefiles_GeoTopo-komprimiert.pdf"); // 117 pages, bookmarked
const page1 = "topmostSubform[0].Page1[0]";

let scratch: Awaited<ReturnType<typeof createTempDir>>;
let stack: Stack;
let client: Client;
let openApi: OpenApiDocument;

beforeAll(async () => {
  scratch = await createTempDir("octavo-forms-");
  stack = await startStack({ database: "sqlite", redis: "supervised" });
  client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  openApi = new OpenApiDocument((await (await fetch(`${stack.baseUrl}/v1/openapi.json`)).json()) as Schema);
});

afterAll(async () => {
  await stack?.close();
  await scratch?.dispose();
});

async function runJob(path: string, file: string, options?: unknown, extra: Record<string, string> = {}) {
  const created = await client.postFiles(path, [{ path: file }], options, extra);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return client.waitForJob(String(created.body.id), 120_000);
}

const download = (url: string | undefined, name: string) => client.downloadTo(url, join(scratch.path, name));

describe("forms", () => {
  it("reads the W-9's fields into the job and fields.json, in the OpenAPI document's FormReport shape", async () => {
    const job = await runJob("/v1/forms/read", w9);
    expect(job.status, job.message).toBe("done");
    expect(job.credits).toBe(1);
    expect(job.form?.form).toBe("xfa-static");
    expect(job.form?.fields).toHaveLength(22);
    expect(openApi.allows(["components", "schemas", "FormReport"], job.form)).toBe(true);
    expect(job.outputs?.[0]?.name).toBe("fields.json");
    const file = JSON.parse(await readFile(await download(job.outputs?.[0]?.url, "fields.json"), "utf8"));
    expect(file).toEqual(job.form);
  });

  it("fills the W-9 as read: qpdf finds every value, and the filled file reads back the same", async () => {
    const values = {
      [`${page1}.f1_1[0]`]: "Jane Q. Public",
      [`${page1}.FederalClassification[0].c1_1[0]`]: true,
      [`${page1}.SSN[0].f1_13[0]`]: "6789",
    };
    const job = await runJob("/v1/forms/fill", w9, { values });
    expect(job.status, job.message).toBe("done");
    expect(job.warnings?.join(" ")).toMatch(/XFA data was removed/);
    const path = await download(job.outputs?.[0]?.url, "filled.pdf");
    const { stdout } = await runTool("qpdf", ["--json", "--json-key=acroform", path]);
    const found = new Map(
      (
        JSON.parse(stdout) as { acroform: { fields: { fullname: string; value: unknown }[] } }
      ).acroform.fields.map((field) => [field.fullname, field.value]),
    );
    expect(found.get(`${page1}.f1_1[0]`)).toBe("u:Jane Q. Public");
    expect(found.get(`${page1}.FederalClassification[0].c1_1[0]`)).toBe("/1");
    expect(found.get(`${page1}.SSN[0].f1_13[0]`)).toBe("u:6789");
  });

  it("refuses options of the wrong shape at once, with 400 invalid_options naming the option", async () => {
    for (const [options, detail] of [
      [{}, /values/],
      [{ values: { a: 5 } }, /values/],
      [{ values: { a: "b" }, flatten: "yes" }, /flatten/],
    ] as const) {
      const created = await client.postFiles("/v1/forms/fill", [{ path: libreOfficeForm }], options);
      expect(created.status, JSON.stringify(options)).toBe(400);
      expect(created.body.error).toBe("invalid_options");
      expect(String(created.body.detail)).toMatch(detail);
    }
  });

  it("fails a job whose values the document refuses with invalid_options naming each field, charging nothing", async () => {
    const used = async () => (await client.get("/v1/account")).body.creditsUsed;
    const before = await used();
    const job = await runJob("/v1/forms/fill", libreOfficeForm, {
      values: { "No Such Field": "x", gdpr: "yes" },
    });
    expect(job).toMatchObject({ status: "failed", error: "invalid_options" });
    expect(job.message).toContain('values["No Such Field"]');
    expect(job.message).toContain('values["gdpr"]: a checkbox takes true or false');
    expect(await used()).toBe(before);
  });

  it("fills then compresses in a pipeline, the value still there", async () => {
    const created = await client.postFiles("/v1/pipeline", [{ path: libreOfficeForm }], undefined, {
      steps: JSON.stringify([
        { operation: "forms-fill", options: { values: { "First Name": "Ada" }, flatten: true } },
        { operation: "compress" },
      ]),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await client.waitForJob(String(created.body.id), 120_000);
    expect(job.status, job.message).toBe("done");
    const path = await download(job.outputs?.[0]?.url, "pipeline.pdf");
    expect((await runTool("pdftotext", [path, "-"])).stdout).toContain("Ada");
  });
});

describe("split modes", () => {
  it("splits by bookmarks, by count and by size, each part named as the mode says", async () => {
    const byBookmarks = await runJob("/v1/split", geoTopo, { mode: "bookmarks" });
    expect(byBookmarks.status, byBookmarks.message).toBe("done");
    expect(byBookmarks.outputs?.map((output) => output.name)).toContain("5 Krümmung.pdf");
    const byCount = await runJob("/v1/split", geoTopo, { mode: "count", pages: 50 });
    expect(byCount.outputs?.map((output) => output.name)).toEqual([
      "samplefiles_GeoTopo-komprimiert-p1-50.pdf",
      "samplefiles_GeoTopo-komprimiert-p51-100.pdf",
      "samplefiles_GeoTopo-komprimiert-p101-117.pdf",
    ]);
    const bySize = await runJob("/v1/split", geoTopo, { mode: "size", maxBytes: 1_000_000 });
    expect(bySize.status, bySize.message).toBe("done");
    for (const output of bySize.outputs ?? []) expect(output.size).toBeLessThanOrEqual(1_000_000);
  });

  it("refuses a mode without its option, or an option of another mode, naming it", async () => {
    for (const [options, detail] of [
      [{ mode: "count" }, /^pages: required with mode "count"/],
      [{ mode: "size" }, /^maxBytes: required with mode "size"/],
      [
        { mode: "size", maxBytes: 100_000, ranges: "1-2" },
        /^ranges: only applies to mode "pages", not "size"/,
      ],
      [{ level: 2 }, /^level: only applies to mode "bookmarks", not "pages"/],
      [{ mode: "size", maxBytes: 5 }, /maxBytes/],
    ] as const) {
      const created = await client.postFiles("/v1/split", [{ path: geoTopo }], options);
      expect(created.status, JSON.stringify(options)).toBe(400);
      expect(created.body.error).toBe("invalid_options");
      expect(String(created.body.detail)).toMatch(detail);
    }
  });
});
