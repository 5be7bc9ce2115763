import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// The core entry is what an edge function or a browser bundles: it must stay small and must not
// reach for anything beyond fetch, FormData, Blob and Web Crypto.

const root = join(import.meta.dirname, "..");
const SIZE_BUDGET = 15 * 1024;

/** The entry bundled and minified; `external`: what it imports from outside the package. */
async function bundle(
  entry: string,
  platform: "neutral" | "node",
): Promise<{ code: string; external: string[] }> {
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    write: false,
    metafile: true,
  });
  const code = result.outputFiles[0]?.text ?? "";
  const external = Object.values(result.metafile.inputs).flatMap((input) =>
    input.imports.filter((each) => each.external).map((each) => each.path),
  );
  return { code, external };
}

describe("the core bundle", () => {
  it("is at most 15 kB minified and gzipped, and imports nothing", async () => {
    const { code, external } = await bundle("src/index.ts", "neutral");
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`core bundle: ${code.length} B minified, ${gzipped} B gzipped (budget ${SIZE_BUDGET} B)`);
    expect(gzipped).toBeLessThanOrEqual(SIZE_BUDGET);
    expect(external).toEqual([]);
    expect(code).not.toMatch(/\bnode:/);
    expect(code).not.toMatch(/\bprocess\.env\b(?!\?)/);
  });

  it("leaves the operation catalogue out of the core", async () => {
    const { code } = await bundle("src/index.ts", "neutral");
    expect(code).not.toContain("Downsamples images");
  });

  it("the Node entry reaches only node: modules", async () => {
    const { external } = await bundle("src/node.ts", "node");
    expect(external.length).toBeGreaterThan(0);
    expect(external.filter((path) => !path.startsWith("node:"))).toEqual([]);
  });
});

describe("the package", () => {
  it("is publishable: not private, ESM with declarations for each export, a README", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
    expect(manifest.private).toBeUndefined();
    expect(manifest.type).toBe("module");
    expect(manifest.exports["."].node.types).toBe("./dist/node.d.ts");
    expect(manifest.exports["."].types).toBe("./dist/index.d.ts");
    expect(manifest.exports["./catalogue"].types).toBe("./dist/catalogue.d.ts");
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    expect(manifest.files).toContain("dist");
    expect(await readFile(join(root, "README.md"), "utf8")).toContain("verifyWebhook");
  });

  it("reports the version of its package.json", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
    const { VERSION } = await import("../src/version.js");
    expect(VERSION).toBe(manifest.version);
  });
});
