import { createHash, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, open, rename, rm, symlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { JobFailure, marksNothing } from "@octavo/engines";
import { familyOf, type OfficeFamily, officeExtensions, textExtensions } from "./extensions.js";
import {
  conversionFailed,
  convertedToNothing,
  crashed,
  damaged,
  emptyFile,
  notWhatItSays,
  openedAs,
  passwordProtected,
  shutDown,
  timedOut,
  unavailable,
  unsupportedExtension,
  zipBomb,
} from "./failures.js";
import { inspectInput } from "./inspect.js";
import {
  type HelperAnswer,
  type HelperRequest,
  InstanceDied,
  InstanceTimedOut,
  OfficeInstance,
} from "./instance.js";
import { isolationPrefix, type NetworkIsolation } from "./isolation.js";
import { type OfficeLogger, silentLogger } from "./logger.js";
import { displayName, extensionOf, pdfNameFor } from "./names.js";
import { Pool } from "./pool.js";
import { prepareTextInput } from "./text-input.js";

export interface OfficeConverterOptions {
  /** Warm LibreOffice instances, each converting one document at a time (one per core is right). */
  instances: number;
  /** Restart an instance after this many conversions: LibreOffice's memory grows with use. */
  maxConversionsPerInstance: number;
  /** Per conversion; a conversion that takes longer kills and restarts its instance. */
  conversionTimeoutMs: number;
  /** Profiles, temporary files and job directories live here. */
  workDir: string;
  logger?: OfficeLogger;
  /** How LibreOffice is kept off the network (default "namespace"; see isolation.ts). */
  networkIsolation?: NetworkIsolation;
  /** Address-space limit of each process (prlimit --as; default 4 GiB). */
  memoryBytes?: number;
  /** How long LibreOffice may take to start and accept the UNO connection (default 60 s). */
  startTimeoutMs?: number;
  /** Debian's paths by default. */
  sofficePath?: string;
  /** A python3 that can `import uno` (Debian's python3-uno); not whatever python3 comes first in PATH. */
  pythonPath?: string;
}

export interface OfficeInput {
  /** A local file. */
  path: string;
  /** The client's file name; its extension decides how the file is read. */
  name: string;
}

export interface OfficeOutput {
  path: string;
  name: string;
  /** What the client should know, e.g. that the PDF has nothing on it. */
  warnings: string[];
}

const defaults = {
  memoryBytes: 4 * 1024 ** 3,
  startTimeoutMs: 60_000,
  sofficePath: "/usr/lib/libreoffice/program/soffice",
  pythonPath: "/usr/bin/python3",
} as const;

const allExtensions = Object.values(officeExtensions).flat();

/** What a conversion writes: a PDF, or for a word-processing document also DOCX or ODT. */
export type OfficeTarget = "pdf" | "docx" | "odt";

const otherTargets: Record<Exclude<OfficeTarget, "pdf">, string> = {
  docx: "MS Word 2007 XML",
  odt: "writer8",
};

/**
 * Word, PowerPoint, Excel, OpenDocument, RTF, CSV and text files to PDF through a bounded pool of warm
 * LibreOffice instances. Instances start on first use, convert one document at a time each, and are
 * restarted after `maxConversionsPerInstance` conversions, when they crash, and when a conversion times
 * out. A conversion that loses its instance to a crash is tried once more on a fresh one.
 */
export class OfficeConverter {
  private readonly options: OfficeConverterOptions;
  private readonly logger: OfficeLogger;
  private readonly instances: OfficeInstance[];
  private readonly pool: Pool<OfficeInstance>;
  private readonly jobsDir: string;
  private launcher: Promise<readonly string[]> | undefined;
  private closed = false;

  constructor(options: OfficeConverterOptions) {
    if (!Number.isInteger(options.instances) || options.instances < 1) {
      throw new RangeError("instances must be a positive integer");
    }
    if (!Number.isInteger(options.maxConversionsPerInstance) || options.maxConversionsPerInstance < 1) {
      throw new RangeError("maxConversionsPerInstance must be a positive integer");
    }
    if (!(options.conversionTimeoutMs > 0)) throw new RangeError("conversionTimeoutMs must be positive");
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    const workDir = resolve(options.workDir);
    this.jobsDir = join(workDir, "jobs");
    // Pipe names are machine-wide (/tmp); derive them from the work dir so two converters never collide.
    const tag = createHash("sha256").update(workDir).digest("hex").slice(0, 12);
    this.instances = Array.from(
      { length: options.instances },
      (_, index) =>
        new OfficeInstance({
          index,
          dir: join(workDir, `instance-${index}`),
          homeDir: join(workDir, "home"),
          pipeName: `octavo-${tag}-${index}`,
          launcher: () => this.launchPrefix(),
          python: options.pythonPath ?? defaults.pythonPath,
          soffice: options.sofficePath ?? defaults.sofficePath,
          startTimeoutMs: options.startTimeoutMs ?? defaults.startTimeoutMs,
          logger: this.logger,
        }),
    );
    this.pool = new Pool(this.instances);
  }

  /** Whether the output shows nothing; a check that cannot be made never fails the conversion. */
  private async marksNothing(path: string, shown: string): Promise<boolean> {
    try {
      return await marksNothing(path);
    } catch (error) {
      this.logger.warn({ file: shown, err: error }, "could not check the PDF for visible content");
      return false;
    }
  }

  /**
   * Converts one file; writes `<name without extension>.pdf` (or the other target's extension) into
   * `outDir`. Throws JobFailure. A word-processing document can also become DOCX or ODT (Generate).
   */
  async convert(
    input: OfficeInput,
    outDir: string,
    signal?: AbortSignal,
    target: OfficeTarget = "pdf",
  ): Promise<OfficeOutput> {
    const shown = displayName(input.name);
    const extension = extensionOf(input.name);
    const family = familyOf(extension);
    if (family === undefined) throw unsupportedExtension(shown, allExtensions);
    if (this.closed) throw shutDown(shown);
    signal?.throwIfAborted();

    const verdict = await inspectInput(input.path, extension);
    if (verdict.kind === "empty") throw emptyFile(shown);
    if (verdict.kind === "password")
      throw passwordProtected(shown, "MS-OFFCRYPTO container (EncryptedPackage)");
    if (verdict.kind === "mismatch") throw notWhatItSays(shown, extension, verdict.looksLike);
    if (verdict.kind === "zip-bomb") throw zipBomb(shown, verdict.unpackedBytes, verdict.size);

    await mkdir(this.jobsDir, { recursive: true });
    const jobDir = await mkdtemp(join(this.jobsDir, "job-"));
    const exportFilter = otherTargets[target as Exclude<OfficeTarget, "pdf">];
    if (target !== "pdf" && family !== "word") throw unsupportedExtension(shown, officeExtensions.word);
    const name = `${pdfNameFor(input.name).slice(0, -".pdf".length)}.${target}`;
    const finalPath = join(outDir, name);
    // LibreOffice writes beside the final file, so the last step is a rename within one directory.
    const partialPath = join(outDir, `.${randomUUID()}.partial.${target}`);
    try {
      const request = await this.request(input, extension, family, jobDir);
      const answer = await this.execute(
        { ...request, output: pathToFileURL(partialPath).href, ...(exportFilter ? { exportFilter } : {}) },
        shown,
        signal,
      );
      if (!answer.ok) throw failureFor(answer, shown, extension);
      if (answer.repaired) this.logger.info({ file: shown }, "LibreOffice repaired a damaged file");
      if (target !== "pdf") {
        await rename(partialPath, finalPath);
        return { path: finalPath, name, warnings: [] };
      }
      await checkPdf(partialPath, shown);
      const warnings = (await this.marksNothing(partialPath, shown)) ? [convertedToNothing(shown)] : [];
      await rename(partialPath, finalPath);
      return { path: finalPath, name, warnings };
    } finally {
      await Promise.all([rm(jobDir, { recursive: true, force: true }), rm(partialPath, { force: true })]);
    }
  }

  /** LibreOffice started again after an instance's first start: recycled, crashed or timed out. */
  get restarts(): number {
    return this.instances.reduce((sum, instance) => sum + Math.max(0, instance.launches - 1), 0);
  }

  /** Stops every instance; conversions still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.pool.close(new JobFailure("conversion_failed", "The converter was shut down; send the file again."));
    await Promise.all(this.instances.map((instance) => instance.shutdown()));
  }

  private launchPrefix(): Promise<readonly string[]> {
    const memory = this.options.memoryBytes ?? defaults.memoryBytes;
    this.launcher ??= isolationPrefix(this.options.networkIsolation ?? "namespace").then((isolation) => [
      "prlimit",
      `--as=${memory}`,
      "--",
      ...isolation,
    ]);
    // A failed probe is retried on the next start rather than cached for ever.
    this.launcher.catch(() => {
      this.launcher = undefined;
    });
    return this.launcher;
  }

  /**
   * The helper request without its output. LibreOffice reads a private copy (text) or link (the rest) in
   * the job directory, named like the client's file: the stored upload may have no extension, which type
   * detection uses as a hint (a .pps opens as a presentation), and a CSV's sheet takes the file's name,
   * which Calc prints in its page header.
   */
  private async request(
    input: OfficeInput,
    extension: string,
    family: OfficeFamily,
    jobDir: string,
  ): Promise<Omit<HelperRequest, "output">> {
    const local = join(jobDir, `${pdfNameFor(input.name).slice(0, -".pdf".length)}${extension}`);
    if (textExtensions.has(extension)) {
      const text = await prepareTextInput(input.path, local);
      if (!text.ok) throw notWhatItSays(displayName(input.name), extension, text.looksLike);
      const { prepared } = text;
      return {
        input: pathToFileURL(prepared.path).href,
        family,
        filter: prepared.filter,
        filterOptions: prepared.filterOptions,
        csv: prepared.csv,
      };
    }
    await symlink(resolve(input.path), local);
    return { input: pathToFileURL(local).href, family };
  }

  private async execute(request: HelperRequest, shown: string, signal?: AbortSignal): Promise<HelperAnswer> {
    for (let attempt = 1; ; attempt += 1) {
      const instance = await this.pool.acquire(signal);
      try {
        await this.started(instance);
        return await instance.convert(request, this.options.conversionTimeoutMs, signal);
      } catch (error) {
        if (error instanceof InstanceTimedOut) throw timedOut(shown, this.options.conversionTimeoutMs);
        if (!(error instanceof InstanceDied)) throw error;
        if (this.closed) throw shutDown(shown);
        if (attempt >= 2) throw crashed(shown, error.message);
        this.logger.warn(
          { file: shown, detail: error.message },
          "LibreOffice died during a conversion; trying again",
        );
      } finally {
        this.release(instance);
      }
    }
  }

  private async started(instance: OfficeInstance): Promise<void> {
    try {
      await instance.ensureStarted();
    } catch (error) {
      throw unavailable(error instanceof Error ? error.message : String(error));
    }
  }

  /** Back to the pool; a dead or worn instance is restarted at once, so the next job finds it warm. */
  private release(instance: OfficeInstance): void {
    const worn = instance.conversions >= this.options.maxConversionsPerInstance;
    if (!this.closed && (worn || !instance.alive)) {
      if (worn) {
        this.logger.info(
          { conversions: instance.conversions },
          "restarting LibreOffice after its conversion limit",
        );
      }
      instance.restart().catch((error: unknown) => {
        this.logger.warn(
          { error: String(error) },
          "LibreOffice could not be restarted; the next job tries again",
        );
      });
    }
    this.pool.release(instance);
  }
}

function failureFor(
  answer: Extract<HelperAnswer, { ok: false }>,
  shown: string,
  extension: string,
): JobFailure {
  const detail = [answer.message, answer.asked ? `asked: ${answer.asked}` : ""].filter(Boolean).join("; ");
  switch (answer.error) {
    case "password":
      return passwordProtected(shown, detail);
    case "unreadable":
      return damaged(shown, extension, detail);
    case "wrong_kind":
      return openedAs(shown, extension, answer.detected ?? "unknown");
    case "export_failed":
    case "crashed":
      return conversionFailed(shown, detail);
  }
}

async function checkPdf(path: string, shown: string): Promise<void> {
  const handle = await open(path, "r").catch((error: unknown) => {
    throw conversionFailed(shown, `no output: ${String(error)}`);
  });
  try {
    const head = Buffer.alloc(5);
    const { bytesRead } = await handle.read(head, 0, 5, 0);
    if (bytesRead < 5 || head.toString("latin1") !== "%PDF-") {
      throw conversionFailed(shown, "the output is not a PDF");
    }
  } finally {
    await handle.close();
  }
}
