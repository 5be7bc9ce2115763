import { mkdir } from "node:fs/promises";
import { JobFailure, preloadEngines } from "@octavo/engines";
import { killProcessTree } from "../process-tree.js";
import { dispatch } from "./dispatch.js";
import type { SandboxMessage, SandboxTask } from "./protocol.js";

/**
 * The sandboxed processor: a child process that parses one untrusted file set with the engines and
 * reports back over IPC. It holds no database, Redis or storage credentials. If the worker dies, the
 * IPC channel closes and the child takes its engine processes down with it.
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

/** Engines throw JobFailure for what the client should know; anything else is an engine failure. */
function asFailure(error: unknown, fileName: string): JobFailure {
  if (error instanceof JobFailure) return error;
  return new JobFailure("conversion_failed", `The PDF engines could not process ${fileName}.`, {
    detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}

// Load the engines while waiting for the task (a spare child is forked ahead of need).
const warm = preloadEngines();

process.once("message", (task: SandboxTask) => {
  const firstName = task.inputs[0]?.name ?? "the file";
  const work = async () => {
    try {
      await warm;
      await mkdir(task.workDir, { recursive: true });
      const result = await dispatch(task, {
        workDir: task.workDir,
        onProgress: (fraction) => void send({ type: "progress", fraction }),
      });
      await send({
        type: "done",
        outputs: result.outputs,
        engine: result.engine,
        warnings: result.warnings,
        ...(result.report ? { report: result.report } : {}),
      });
    } catch (error) {
      const failure = asFailure(error, firstName);
      await send({ type: "failed", code: failure.code, message: failure.message, detail: failure.detail });
    }
  };
  work().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
