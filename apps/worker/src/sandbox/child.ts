import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure, onProgramRun } from "@octavo/engines";
import { drainMupdfLog, loadMupdf, renewMupdf } from "@octavo/mupdf";
import { killProcessTree } from "../process-tree.js";
import { dispatch } from "./dispatch.js";
import type { ProgramRunReport, RunMessage, SandboxMessage, SandboxResult } from "./protocol.js";

/**
 * The sandbox: a child process that parses untrusted files with the engines, one job at a time, and
 * reports back over IPC. It holds no database, Redis or storage credentials. Every job gets a MuPDF
 * instance of its own, made while the sandbox waits; the worker decides whether the process then takes
 * another job or ends. If the worker dies, the IPC channel closes and the child takes its engine
 * processes down with it.
 */
function send(message: SandboxMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) {
      resolve();
      return;
    }
    process.send(message, undefined, {}, () => resolve());
  });
}

function die(): never {
  killProcessTree(process.pid, { includeRoot: false });
  process.exit(1);
}

process.on("disconnect", die);

// Engine modules named by the worker, imported while the sandbox waits: a job's own import (dispatch) then
// finds them loaded. A module that fails to load here fails that job's import the same way, with its error.
for (const module of process.argv.slice(2)) void import(module).catch(() => undefined);

/** How long the sandbox waits for its next job before it collects garbage. */
const IDLE_COLLECTION_MS = 200;

/** Engines throw JobFailure for what the client should know; anything else is an engine failure. */
function asFailure(error: unknown, fileName: string): JobFailure {
  if (error instanceof JobFailure) return error;
  return new JobFailure("conversion_failed", `The PDF engines could not process ${fileName}.`, {
    detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}

/** The temp directory the sandbox was started with, for the time between jobs. */
const sandboxTmpDir = process.env.TMPDIR;

/**
 * Points TMPDIR (which every engine program inherits, and Node's tmpdir() reads) into the job's work dir,
 * so what an engine writes there (Ghostscript's gs_* files, up to megabytes each) goes with the job even
 * when the engine is killed at a timeout. A sandbox runs one job at a time, so the variable is the job's.
 */
async function useJobTempDir(workDir: string): Promise<void> {
  const dir = join(workDir, "tmp");
  await mkdir(dir, { recursive: true });
  process.env.TMPDIR = dir;
}

function restoreTempDir(): void {
  if (sandboxTmpDir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = sandboxTmpDir;
}

/** The most program runs a result reports (OCR runs one a page): the trace shows the first ones. */
const MAX_REPORTED_RUNS = 500;

async function run(message: RunMessage): Promise<SandboxResult> {
  const { task, engine } = message;
  const programs: ProgramRunReport[] = [];
  const stopListening = onProgramRun((ran) => {
    if (programs.length < MAX_REPORTED_RUNS) programs.push(ran);
  });
  try {
    await useJobTempDir(task.workDir);
    const result = await dispatch(task, engine, {
      workDir: task.workDir,
      onProgress: (fraction) => void send({ type: "progress", fraction }),
      urlAllowlist: message.urlAllowlist,
    });
    return {
      type: "done",
      outputs: result.outputs,
      engine: result.engine,
      warnings: result.warnings,
      ...(result.report ? { report: result.report } : {}),
      programs,
    };
  } catch (error) {
    const failure = asFailure(error, task.inputs[0]?.name ?? "the file");
    return { type: "failed", code: failure.code, message: failure.message, detail: failure.detail, programs };
  } finally {
    stopListening();
    restoreTempDir();
  }
}

// The first job's instance is made while the sandbox waits for it; each later one right after the
// job before it, so no document, password or decoded byte of one job is in the next one's MuPDF.
let nextInstance = loadMupdf();
let jobs = Promise.resolve();
let idleCollection: NodeJS.Timeout | undefined;

process.on("message", (message: RunMessage) => {
  if (message.type !== "run") return;
  clearTimeout(idleCollection);
  jobs = jobs.then(async () => {
    await nextInstance;
    drainMupdfLog();
    await send(await run(message));
    nextInstance = renewMupdf();
    // Under load V8 collects the old instances as it goes; once the sandbox waits, a full collection
    // releases the last one's memory at once (too slow to run after every job: about 12 ms).
    idleCollection = setTimeout(() => globalThis.gc?.(), IDLE_COLLECTION_MS);
  });
});
