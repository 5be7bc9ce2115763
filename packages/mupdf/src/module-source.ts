import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { compileFunction } from "node:vm";

/**
 * Runs MuPDF.js's module code once more around a new WebAssembly instance and returns its exports.
 * `loader` is Emscripten's factory from mupdf-wasm.js; `dynamicImport` stands in for `import()`.
 */
export type ModuleBody = (
  loader: unknown,
  dynamicImport: (specifier: string) => Promise<unknown>,
  importMeta: { url: string },
) => Promise<Record<string, unknown>>;

/** Where the build leaves the rewritten body (write-module-body.ts), beside this module in dist. */
export const prebuiltBodyUrl = new URL("./mupdf-module-body.json", import.meta.url);

/** The prebuilt body, and the SHA-256 of the MuPDF.js source it was made from. */
export interface PrebuiltBody {
  source: string;
  body: string;
}

export const sourceDigest = (source: string): string => createHash("sha256").update(source).digest("hex");

/**
 * MuPDF.js is an ES module that binds all its classes to one WebAssembly instance, made when the module
 * is evaluated; Node evaluates a module once per process and never lets it go. To give each job an
 * instance of its own, the module's source is rewritten into the body of a function (module-rewrite.ts),
 * and each call evaluates the code anew around a new instance; all of it is garbage once the caller drops
 * what the call returned. The rewrite is made at build time: parsing MuPDF.js took a tenth of a second of
 * every sandbox's start. It is used when it was made from the MuPDF.js installed; else it is made here.
 */
export async function compileModuleBody(path: string): Promise<ModuleBody> {
  const source = await readFile(path, "utf8");
  const body = (await prebuiltBody(source)) ?? (await import("./module-rewrite.js")).asFunctionBody(source);
  // One line, so positions in stack traces stay those of MuPDF.js's own file.
  const wrapped = `return (async () => { "use strict"; ${body}\n})();`;
  return compileFunction(wrapped, ["$loader", "$import", "$importMeta"], {
    filename: path,
  }) as unknown as ModuleBody;
}

async function prebuiltBody(source: string): Promise<string | undefined> {
  let prebuilt: PrebuiltBody;
  try {
    prebuilt = JSON.parse(await readFile(prebuiltBodyUrl, "utf8")) as PrebuiltBody;
  } catch {
    return undefined;
  }
  return prebuilt.source === sourceDigest(source) ? prebuilt.body : undefined;
}
