import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findProgram } from "./programs.js";
import { run } from "./run.js";

export interface EngineComponent {
  name: string;
  found: boolean;
  version?: string;
  path?: string;
  /** The program probed, as the engines start it: what `octavo doctor` matches against an operation's programs. */
  program?: string;
  usedFor: string;
  /** Missing it costs nothing; `octavo doctor` still succeeds. */
  optional?: true;
}

/** A program to look for on PATH, and how to read its version. */
export interface Probe {
  name: string;
  program: string;
  args: string[];
  /** Picks the version out of the probe's stdout and stderr. */
  version: RegExp;
  usedFor: string;
  optional?: true;
}

const probes: Probe[] = [
  {
    name: "qpdf",
    program: "qpdf",
    args: ["--version"],
    version: /qpdf version (\S+)/,
    usedFor: "split, rotate, protect, unlock; first repair engine; second parser for merge",
  },
  {
    name: "ghostscript",
    program: "gs",
    args: ["--version"],
    version: /^(\d+\.\d+(?:\.\d+)?)/m,
    usedFor: "last repair engine; compress and PDF/A rewrites; OCRmyPDF's page rasteriser",
  },
  {
    name: "pdfinfo (poppler)",
    program: "pdfinfo",
    args: ["-v"],
    version: /pdfinfo version (\S+)/,
    usedFor: "third parser that validates repaired files",
  },
  {
    name: "prlimit (util-linux)",
    program: "prlimit",
    args: ["--version"],
    version: /util-linux (\S+)/,
    usedFor: "memory and CPU limits for every engine process",
  },
  {
    name: "mutool (MuPDF CLI)",
    program: "mutool",
    args: ["-v"],
    version: /mutool version (\S+)/,
    usedFor: "optional: not called by the engines (they use MuPDF.js); shown to compare MuPDF versions",
    optional: true,
  },
];

/** Every program and library the engines use, with the version its probe reports. */
export async function doctor(): Promise<EngineComponent[]> {
  const programs = await Promise.all(probes.map(probeProgram));
  return [
    ...programs,
    await libraryVersion("mupdf", "MuPDF.js (mupdf): merge, second parser, repair, unlock fallback"),
    await libraryVersion("@mongodb-js/saslprep", "SASLprep of AES-256 passwords (protect, unlock)"),
  ];
}

export async function probeProgram(probe: Probe): Promise<EngineComponent> {
  const path = findProgram(probe.program);
  const optional = probe.optional ? { optional: true as const } : {};
  const named = { name: probe.name, program: probe.program };
  if (path === undefined) return { ...named, found: false, usedFor: probe.usedFor, ...optional };
  // Probes run through run() like any engine; no prlimit here so a missing prlimit is reported, not fatal.
  const result = await run(path, probe.args, { timeoutMs: 10_000, memoryBytes: null }).catch(() => undefined);
  const version = probe.version.exec(`${result?.stdout ?? ""}\n${result?.stderr ?? ""}`)?.[1];
  const found = result !== undefined && result.exitCode === 0 && version !== undefined;
  return {
    ...named,
    found,
    ...(version === undefined ? {} : { version }),
    path,
    usedFor: probe.usedFor,
    ...optional,
  };
}

async function libraryVersion(name: string, usedFor: string): Promise<EngineComponent> {
  try {
    const entry = fileURLToPath(import.meta.resolve(name));
    const packageDir = await packageRoot(dirname(entry), name);
    const manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as {
      version?: unknown;
    };
    const version = typeof manifest.version === "string" ? manifest.version : undefined;
    return { name, found: true, ...(version === undefined ? {} : { version }), path: packageDir, usedFor };
  } catch {
    // Not installed or not resolvable from here.
    return { name, found: false, usedFor };
  }
}

/** Walks up from a module file to the directory whose package.json names the package. */
async function packageRoot(start: string, name: string): Promise<string> {
  for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (manifest.name === name) return dir;
    } catch {
      // No package.json at this level; go up.
    }
  }
  throw new Error(`package root of ${name} not found`);
}
