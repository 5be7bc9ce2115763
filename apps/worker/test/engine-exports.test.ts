import { catalogue, operationIds } from "@octavo/contracts";
import { describe, expect, it } from "vitest";
import { isSandboxed, prepareEngineOf, sandboxEngineOf, sparePreloads } from "../src/operations.js";
import { engineFunction } from "../src/sandbox/dispatch.js";
import { testModeEngines } from "../src/test-mode.js";

/*
 * The sandbox calls the engine a catalogue entry names; a module or export that is not there, or a
 * function that does not take (input, options, context), would fail only on the operation's first job.
 * This is that entry's check, for every sandboxed operation.
 */
const sandboxed = operationIds.filter(isSandboxed);

describe("the catalogue's sandboxed engines", () => {
  it("are the sandboxed operations, and some are not", () => {
    expect(sandboxed.length).toBeGreaterThan(10);
    expect(sandboxed.length).toBeLessThan(operationIds.length);
  });

  it.each(sandboxed)("%s names a function that takes (input, options, context)", async (operation) => {
    const engine = await engineFunction(sandboxEngineOf(operation));
    expect(engine.length).toBe(3);
    const files: (typeof catalogue)[typeof operation]["files"] = catalogue[operation].files;
    expect(sandboxEngineOf(operation).manyInputs).toBe(files.max > 1 || "named" in files);
  });

  it("gives a resident operation's prepare step a function that takes (inputs, options, context)", async () => {
    const prepare = prepareEngineOf("generate");
    expect(prepare).toEqual({ module: "@octavo/generate", export: "fillTemplate", manyInputs: true });
    expect((await engineFunction(prepare ?? { module: "", export: "" })).length).toBe(3);
    expect(prepareEngineOf("word-to-pdf")).toBeUndefined();
  });

  it("gives test mode's two steps functions that take (files, options, context)", async () => {
    for (const engine of Object.values(testModeEngines))
      expect((await engineFunction(engine)).length).toBe(3);
  });

  it("may name one module of an engine package by its path", async () => {
    const engine = await engineFunction({ module: "@octavo/edit/metadata", export: "metadata" });
    expect(engine).toBe((await import("@octavo/edit")).metadata);
  });

  it("refuses an export that is not there, naming it", async () => {
    await expect(engineFunction({ module: "@octavo/engines", export: "noSuchEngine" })).rejects.toThrow(
      "@octavo/engines exports no function noSuchEngine",
    );
  });
});

describe("a spare sandbox's preloads", () => {
  it("are the modules of the light operations that take a fresh process and of prepare steps, each once", () => {
    expect(sparePreloads(["merge", "sign", "verify-signatures", "redact", "ocr", "word-to-pdf"])).toEqual([
      "@octavo/sign/operations",
    ]);
    expect(sparePreloads(["word-to-pdf", "generate", "html-to-pdf"])).toEqual(["@octavo/generate"]);
    expect(sparePreloads(["metadata", "pdf-info", "rotate"])).toEqual([
      "@octavo/edit",
      "@octavo/edit/pdf-info",
    ]);
  });

  it.each(sparePreloads(operationIds))("%s can be imported", async (module) => {
    await expect(import(module)).resolves.toBeTruthy();
  });
});
