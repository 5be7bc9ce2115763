import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateOptions } from "@octavo/contracts";
import { JobFailure } from "@octavo/engines";
import { renewMupdf } from "@octavo/mupdf";
import { corpusPath, readManifest, rejectionOf } from "@octavo/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type SandboxedOperation, sandboxEngineOf } from "../src/operations.js";
import { dispatch } from "../src/sandbox/dispatch.js";
import type { SandboxTask } from "../src/sandbox/protocol.js";

/*
 * Every encrypted file of the corpus through each operation the API's corpus sweeps once sent them to
 * with these options: each ends password_required, and the Microsoft IRM wrapper, whose content no
 * password opens, with a code that says what is wrong with it; every message is a sentence. The files
 * fail at the first look, so they go through the sandbox's own dispatch here, with the options as the API
 * validates them and a fresh MuPDF instance per job as in a sandbox, not through a new sandbox process per
 * job (a process start was nearly all of each such job's cost). The other operations' encrypted sweeps:
 * engines/test/inputs and unlock, compress/test/damaged, ocr/test/inputs, pdfa/test/pdfa.
 */
const operations: [SandboxedOperation, unknown][] = [
  ["pdf-to-word", undefined],
  ["pdf-to-powerpoint", undefined],
  // Pages mode: in tables mode a file with no table would end no_tables, which is tested apart.
  ["pdf-to-excel", { mode: "pages" }],
  ["watermark", { text: "OCTAVO SWEEP", rotation: 0 }],
  ["page-numbers", { format: "p{n}/{total}", start: 1 }],
  ["flatten", {}],
  ["metadata", { title: "Sweep title — ünïcode", author: "octavo", keywords: ["sweep", "corpus"] }],
  ["pdf-to-image", { dpi: 36 }],
];
const irmWrapper = "encrypted/tika_testMicrosoftIRMServices.pdf";
/** The codes that say what is wrong with a damaged or unreadable input. */
const inputCodes = ["invalid_input", "password_required", "conversion_failed"];
const encrypted = readManifest()
  .filter(({ path }) => path.startsWith("encrypted/") && path.endsWith(".pdf"))
  .map(({ path }) => path);

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "octavo-worker-test-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});
beforeEach(async () => {
  await renewMupdf();
});

describe.each(operations)("every encrypted corpus file through %s", (operation, raw) => {
  const validated = validateOptions(operation, raw);
  if (!validated.ok) throw new Error(`${operation}: ${validated.detail}`);

  it.each(encrypted)("%s", async (file) => {
    const task = {
      operation,
      options: validated.value,
      inputs: [{ path: corpusPath(file), name: file.split("/").pop() ?? file }],
      workDir,
    } as SandboxTask;
    const failure = await rejectionOf(
      dispatch(task, sandboxEngineOf(task.operation), {
        workDir: await mkdtemp(join(workDir, "job-")),
        urlAllowlist: "",
      }),
      JobFailure,
    );
    if (file === irmWrapper) expect(inputCodes).toContain(failure.code);
    else expect(failure.code).toBe("password_required");
    expect(failure.message.length).toBeGreaterThanOrEqual(20);
  });
});
