import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  currentMupdf,
  drainMupdfLog,
  instanceMemory,
  loadMupdf,
  type MupdfModule,
  renewMupdf,
} from "../src/index.js";
import { asFunctionBody } from "../src/module-rewrite.js";
import { type PrebuiltBody, sourceDigest } from "../src/module-source.js";

// The garbage collector on demand, to show an instance is released (a V8 flag set at run time).
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** A one-page PDF whose page says `marker` in a compressed content stream, made with the instance itself. */
function pdfSaying(mupdf: MupdfModule, marker: string): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font("Helvetica"));
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put("F1", font);
    resources.put("Font", fonts);
    const content = `BT /F1 12 Tf 72 720 Td (${marker}) Tj ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, resources, content));
    return doc.saveToBuffer("compress").asUint8Array().slice();
  } finally {
    doc.destroy();
  }
}

function contains(haystack: Uint8Array, needle: string): boolean {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).includes(needle);
}

describe("MuPDF instances", () => {
  it("offers every export of the MuPDF.js module", async () => {
    const mupdf = await loadMupdf();
    // The real module is read in another process: loading it here would take over the callbacks.
    const script = 'import("mupdf").then((m) => console.log(JSON.stringify(Object.keys(m).sort())))';
    const expected = JSON.parse(
      execFileSync(process.execPath, ["-e", script], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        encoding: "utf8",
      }),
    ) as string[];
    expect(expected.length).toBeGreaterThan(30);
    expect(Object.keys(mupdf).sort()).toEqual(expected);
  });

  it("gives the same instance until it is renewed, then a new one with its own memory", async () => {
    const first = await loadMupdf();
    expect(await loadMupdf()).toBe(first);
    expect(currentMupdf()).toBe(first);
    const second = await renewMupdf();
    expect(second).not.toBe(first);
    expect(currentMupdf()).toBe(second);
    expect(instanceMemory(second).buffer).not.toBe(instanceMemory(first).buffer);
  });

  it("leaves nothing of one job's document in the next instance's memory", async () => {
    const marker = `SECRET-${process.pid}-${Date.now()}`;
    const before = await renewMupdf();
    const bytes = pdfSaying(before, marker);
    // The file holds the page compressed: the marker's bytes exist only where MuPDF decoded them.
    expect(contains(bytes, marker)).toBe(false);
    const doc = new before.PDFDocument(bytes);
    const text = doc.loadPage(0).toStructuredText("preserve-whitespace").asText();
    expect(text).toContain(marker);
    doc.destroy();
    // Freed is not erased: the instance's heap still holds the decoded page.
    expect(contains(instanceMemory(before), marker)).toBe(true);

    const after = await renewMupdf();
    expect(contains(instanceMemory(after), marker)).toBe(false);
    // The new instance works on its own: it opens the same bytes afresh.
    const again = new after.PDFDocument(bytes);
    expect(again.countPages()).toBe(1);
    again.destroy();
  });

  it("releases renewed instances' memory", async () => {
    const collected = new Set<number>();
    const registry = new FinalizationRegistry<number>((index) => collected.add(index));
    const made = 5;
    for (let index = 0; index < made; index += 1) {
      const mupdf = await renewMupdf();
      new mupdf.PDFDocument(pdfSaying(mupdf, `page ${index}`)).destroy();
      registry.register(instanceMemory(mupdf).buffer, index);
    }
    await renewMupdf();
    // All but the last one used: V8's call-site feedback holds on to it until those sites run again.
    const expected = Array.from({ length: made - 1 }, (_, index) => index);
    const deadline = Date.now() + 10_000;
    while (!expected.every((index) => collected.has(index)) && Date.now() < deadline) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect([...collected].sort()).toEqual(expect.arrayContaining(expected));
  });

  it("caps each instance's memory: an allocation past 2 GiB fails inside MuPDF, which goes on working", async () => {
    const mupdf = await renewMupdf();
    // 30,000 × 30,000 RGB pixels: 2.7 GB, beyond what the instance's WebAssembly memory may grow to.
    expect(() => new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, [0, 0, 30_000, 30_000], false)).toThrow();
    expect(instanceMemory(mupdf).byteLength).toBeLessThanOrEqual(2 * 1024 ** 3);
    const doc = new mupdf.PDFDocument(pdfSaying(mupdf, "still working"));
    expect(doc.countPages()).toBe(1);
    doc.destroy();
  });

  it("keeps MuPDF's messages for the caller", async () => {
    const mupdf = await renewMupdf();
    drainMupdfLog();
    // A truncated file: MuPDF repairs it and says so.
    const bytes = pdfSaying(mupdf, "broken");
    const cut = bytes.slice(0, Math.floor(bytes.length * 0.8));
    try {
      new mupdf.PDFDocument(cut).destroy();
    } catch {
      // Refused outright is fine too: the messages are what this checks.
    }
    expect(drainMupdfLog().length).toBeGreaterThan(0);
    expect(drainMupdfLog()).toEqual([]);
  });
});

describe("the module rewrite", () => {
  it("turns every export form into a returned field and refuses what it does not know", () => {
    const body = asFunctionBody(
      [
        'import loader from "./mupdf-wasm.js";',
        "export const a = 1;",
        "export function b() { return import.meta.url; }",
        "export class C {}",
        "const d = 4; export { d as e };",
        "export default { a };",
        'const fs = await import("node:fs");',
      ].join("\n"),
    );
    expect(body).toContain("const loader = $loader;");
    expect(body).toContain('$import("node:fs")');
    expect(body).toContain("return $importMeta.url");
    expect(body).toContain('return { "a": a, "b": b, "C": C, "e": d, "default": $default };');
    expect(() => asFunctionBody('export * from "./other.js";')).toThrow(/does not rewrite/);
    expect(() => asFunctionBody('import other from "./other.js";')).toThrow(/does not rewrite/);
  });

  it("rewrites the installed MuPDF.js, as the build wrote it beside the built modules", () => {
    const source = readFileSync(fileURLToPath(import.meta.resolve("mupdf")), "utf8");
    const body = asFunctionBody(source);
    const prebuilt = JSON.parse(
      readFileSync(new URL("../dist/mupdf-module-body.json", import.meta.url), "utf8"),
    ) as PrebuiltBody;
    expect(prebuilt.source).toBe(sourceDigest(source));
    expect(prebuilt.body).toBe(body);
  });
});
