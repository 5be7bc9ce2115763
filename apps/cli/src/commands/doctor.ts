import { spawnSync } from "node:child_process";
import { type OperationId, operationIds, PIPELINE } from "@octavo/contracts";
import { doctor, type EngineComponent } from "@octavo/engines";
import { ocrDoctor } from "@octavo/ocr";
import { operationPrograms, programInstalled } from "@octavo/worker";
import { printJson } from "../output.js";
import { requestedQueues } from "./serve.js";

/**
 * What the machine is for, and so what must be there:
 * - neither (`octavo doctor`): the single machine of `octavo start`, every operation's engines and
 *   the supervised redis-server;
 * - `queues` (`octavo doctor --queues merge,split`, the syntax of `octavo worker --queues`): the
 *   engines of those queues' operations;
 * - `api` alone (`octavo doctor --api`): an API-only node, which runs no engine.
 * Everything is reported either way; what is not required cannot fail the check.
 */
export interface DoctorScope {
  queues?: string | undefined;
  api?: boolean | undefined;
}

/** A program or library found or missing, as the engines' own probes report it. */
type Entry = EngineComponent;

/** One line of the report: an entry, whether this role needs it and, if for its queues, for which. */
type ReportEntry = Entry & { required: boolean; requiredBy?: OperationId[] };

function probe(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 });
  if (result.error || result.status !== 0) return undefined;
  return result.stdout.trim().split("\n")[0];
}

/** The operations a scope runs; webhook deliveries need no engine. */
function operationsOf(scope: DoctorScope): readonly OperationId[] {
  if (scope.queues === undefined) return scope.api ? [] : operationIds;
  const names: readonly string[] = requestedQueues(scope.queues).map((spec) => spec.name);
  // A pipeline may chain any operations: the worker that takes it needs every engine.
  if (names.includes(PIPELINE)) return operationIds;
  return operationIds.filter((operation) => names.includes(operation));
}

/**
 * Every program and library octavo's engines and defaults use: found or missing, with its version,
 * and whether the role in `scope` requires it. True when nothing required is missing.
 */
export async function doctorCommand(scope: DoctorScope = {}): Promise<boolean> {
  const machine = scope.queues === undefined && !scope.api;
  const operations = operationsOf(scope);
  const engines = await doctor();
  const ocr = await ocrDoctor();
  const redis = probe("redis-server", ["--version"]);
  const soffice = probe("soffice", ["--version"]);
  // Debian's python3 (the one python3-uno belongs to), not whatever python3 comes first in PATH.
  const uno = probe("/usr/bin/python3", ["-c", "import uno; print('ok')"]);
  const chromium = probe("chromium", ["--version"]);
  const entries: Entry[] = [
    ...engines,
    {
      name: "libreoffice",
      found: soffice !== undefined,
      ...(soffice ? { version: /LibreOffice ([\d.]+)/.exec(soffice)?.[1] ?? soffice } : {}),
      program: "soffice",
      usedFor: "Word, PowerPoint and Excel to PDF (warm listeners)",
    },
    {
      name: "python3-uno",
      found: uno === "ok",
      program: "/usr/bin/python3",
      usedFor: "driving the LibreOffice listeners",
    },
    {
      name: "chromium",
      found: chromium !== undefined,
      ...(chromium ? { version: /([\d.]+)/.exec(chromium)?.[1] ?? chromium } : {}),
      program: "chromium",
      usedFor: "HTML and URL to PDF (puppeteer-core)",
    },
    ...ocr,
  ];
  // OCR's language data is required wherever the program that reads it is.
  const tesseractData = new Set<Entry>(ocr.filter((entry) => entry.program === undefined));
  const programOf = (entry: Entry) => entry.program ?? (tesseractData.has(entry) ? "tesseract" : undefined);
  // The programs of operationPrograms that no probe above looks at (pdftotext, unshare…): found or not.
  const probed = new Set(entries.map((entry) => entry.program));
  for (const program of new Set(Object.values(operationPrograms).flat())) {
    if (probed.has(program)) continue;
    const users = operationIds.filter((operation) => operationPrograms[operation].includes(program));
    entries.push({ name: program, found: programInstalled(program), program, usedFor: users.join(", ") });
  }

  const requiredBy = (program: string) =>
    operations.filter((operation) => operationPrograms[operation].includes(program));
  const report: ReportEntry[] = [
    {
      name: "node",
      found: true,
      version: process.versions.node,
      path: process.execPath,
      usedFor: "runtime",
      required: true,
    },
    {
      name: "redis-server",
      found: redis !== undefined,
      ...(redis ? { version: /v=(\S+)/.exec(redis)?.[1] ?? redis } : {}),
      usedFor: "the supervised queue when OCTAVO_REDIS_URL is unset",
      required: machine,
    },
    ...entries.map((entry): ReportEntry => {
      if (entry.optional) return { ...entry, required: false };
      // A node package of the engines (MuPDF.js, saslprep): wherever an operation runs.
      const program = programOf(entry);
      if (program === undefined) return { ...entry, required: operations.length > 0 };
      const users = requiredBy(program);
      return users.length > 0
        ? { ...entry, required: true, requiredBy: users }
        : { ...entry, required: false };
    }),
  ];
  printJson(report);
  const missing = report.filter((entry) => entry.required && !entry.found);
  for (const entry of missing) {
    const why = entry.requiredBy ? ` (needed by ${entry.requiredBy.join(", ")})` : "";
    process.stderr.write(`octavo doctor: ${entry.name} is missing${why}\n`);
  }
  return missing.length === 0;
}
