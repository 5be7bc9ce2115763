import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Mupdf from "mupdf";
import { MessageLog } from "./message-log.js";
import { compileModuleBody, type ModuleBody } from "./module-source.js";

export type MupdfModule = typeof Mupdf;

/** What Emscripten's factory is given and fills in: the hook that instantiates, then the heap views. */
interface EmscriptenModule {
  instantiateWasm(
    imports: WebAssembly.Imports,
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ): object;
  HEAPU8?: Uint8Array;
}

interface Compiled {
  body: ModuleBody;
  loader: unknown;
  wasm: WebAssembly.Module;
  url: string;
}

// MuPDF prints a line per broken stream (hundreds on some files); a few are kept for warnings and logs.
const log = new MessageLog(20);
const modules = new WeakMap<MupdfModule, EmscriptenModule>();
let compiled: Promise<Compiled> | undefined;
let current: MupdfModule | undefined;
// Instances are made one after the other: MuPDF.js reads its settings from, and installs its callbacks
// on, globalThis while it starts.
let making: Promise<MupdfModule> | undefined;

/** Reads and compiles MuPDF.js and its WebAssembly once per process; every instance shares them. */
function compile(): Promise<Compiled> {
  compiled ??= (async () => {
    const path = fileURLToPath(import.meta.resolve("mupdf"));
    const dist = dirname(path);
    const [body, loader, wasm] = await Promise.all([
      compileModuleBody(path),
      import(pathToFileURL(join(dist, "mupdf-wasm.js")).href).then(
        (module: { default: unknown }) => module.default,
      ),
      readFile(join(dist, "mupdf-wasm.wasm")).then((bytes) => WebAssembly.compile(bytes)),
    ]);
    return { body, loader, wasm, url: pathToFileURL(path).href };
  })();
  return compiled;
}

async function instantiate(): Promise<MupdfModule> {
  const { body, loader, wasm, url } = await compile();
  let failed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  const emscripten: EmscriptenModule = {
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm), failed);
      return {};
    },
  };
  const globals = globalThis as { $libmupdf_wasm_Module?: EmscriptenModule };
  globals.$libmupdf_wasm_Module = emscripten;
  try {
    const exports = await Promise.race([body(loader, (specifier) => import(specifier), { url }), failure]);
    const instance = exports as unknown as MupdfModule;
    instance.setLog({
      error: (message) => log.add(message.trim()),
      warning: (message) => log.add(message.trim()),
    });
    modules.set(instance, emscripten);
    return instance;
  } finally {
    delete globals.$libmupdf_wasm_Module;
  }
}

function make(): Promise<MupdfModule> {
  const after = making?.catch(() => undefined) ?? Promise.resolve(undefined);
  const next = after.then(instantiate).then((instance) => {
    current = instance;
    return instance;
  });
  making = next;
  // A failed start is not kept: the next call tries again.
  next.catch(() => {
    if (making === next) making = undefined;
  });
  return next;
}

/** The process's MuPDF, made on first use. */
export function loadMupdf(): Promise<MupdfModule> {
  if (current) return Promise.resolve(current);
  return making ?? make();
}

/**
 * The process's MuPDF when it is loaded, for code that runs on documents opened with it. Throws when
 * nothing has loaded it yet: such code must receive a document from `loadMupdf()`'s instance first.
 */
export function currentMupdf(): MupdfModule {
  if (!current) throw new Error("MuPDF is not loaded: open the document with loadMupdf() first");
  return current;
}

/**
 * Replaces the process's MuPDF with a fresh instance: a new WebAssembly memory, nothing of the old
 * one reachable from it. Objects of the old instance must not be used again (it no longer receives
 * MuPDF's callbacks); once nothing refers to them, the old memory is garbage and is released by the
 * next full collection. A sandbox calls this between jobs, so no document, password or decoded byte
 * of one job is in the memory of the next one's MuPDF.
 */
export function renewMupdf(): Promise<MupdfModule> {
  current = undefined;
  return make();
}

/** MuPDF's messages since the last call (at most 20 distinct ones, and a count of the rest). */
export function drainMupdfLog(): string[] {
  return log.drain();
}

/** The instance's WebAssembly memory as bytes: for tests and diagnostics that look inside it. */
export function instanceMemory(instance: MupdfModule): Uint8Array {
  const memory = modules.get(instance)?.HEAPU8;
  if (!memory) throw new Error("not an instance made by @octavo/mupdf");
  return memory;
}
