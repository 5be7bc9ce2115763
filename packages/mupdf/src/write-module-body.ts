import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { asFunctionBody } from "./module-rewrite.js";
import { type PrebuiltBody, prebuiltBodyUrl, sourceDigest } from "./module-source.js";

/**
 * Run by the build (`node dist/write-module-body.js`): writes MuPDF.js's module rewritten as a function
 * body beside the built modules, with the digest of the source it was made from, so a process that loads
 * MuPDF does not parse MuPDF.js (compileModuleBody).
 */
const source = await readFile(fileURLToPath(import.meta.resolve("mupdf")), "utf8");
const prebuilt: PrebuiltBody = { source: sourceDigest(source), body: asFunctionBody(source) };
await writeFile(prebuiltBodyUrl, JSON.stringify(prebuilt));
