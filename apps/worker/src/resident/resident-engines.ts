import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { HtmlRenderer, type HtmlRenderOptions } from "@octavo/browser";
import type { OptionsOf } from "@octavo/contracts";
import { JobFailure } from "@octavo/engines";
import type { AllowList } from "@octavo/net";
import { OfficeConverter } from "@octavo/office";
import { type ResidentOperation, residentEngineOf } from "../operations.js";
import { type EngineTask, type SandboxResult, type TaskOutput, timedOutResult } from "../sandbox/protocol.js";
import { generateDocuments, PrepareFailed, type PrepareStep } from "./generate.js";
import { uniqueName } from "./output-names.js";

export type ResidentTask = EngineTask<ResidentOperation>;

/** One operation's task, not distributed over a union of operations, so a generic K can index the table. */
type TaskOf<K extends ResidentOperation> = {
  operation: K;
  options: OptionsOf<K>;
  inputs: ResidentTask["inputs"];
  workDir: string;
};

type ResidentCall<K extends ResidentOperation> = (
  task: TaskOf<K>,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
  prepare: PrepareStep,
) => Promise<{ outputs: TaskOutput[]; warnings: string[] }>;

export interface ResidentSettings {
  workDir: string;
  allowlist: AllowList;
  /** LibreOffice instances, one per core by default. */
  officeInstances: number;
}

const PDF = "application/pdf";

/**
 * The warm engines of one worker process: LibreOffice listeners and one Chromium, each started on
 * first use and supervised by its package. The untrusted file is parsed by those child processes,
 * under their own limits; this class only hands them work and enforces the job's deadline.
 */
export class ResidentEngines {
  private office: OfficeConverter | undefined;
  private browser: HtmlRenderer | undefined;

  constructor(private readonly settings: ResidentSettings) {}

  /**
   * Operation id → its engine's way through a task, for every resident operation: a new one does not
   * compile until it has a row here (its catalogue entry names the engine it reports).
   */
  private readonly residentCalls: { [K in ResidentOperation]: ResidentCall<K> } = {
    "word-to-pdf": (task, signal, onProgress) => this.convertOffice(task, signal, onProgress),
    "powerpoint-to-pdf": (task, signal, onProgress) => this.convertOffice(task, signal, onProgress),
    "excel-to-pdf": (task, signal, onProgress) => this.convertOffice(task, signal, onProgress),
    "html-to-pdf": async (task, signal) => ({ outputs: await this.renderHtml(task, signal), warnings: [] }),
    generate: (task, signal, onProgress, prepare) =>
      generateDocuments(task, () => this.officeConverter(), prepare, signal, onProgress),
  };

  private callResident<K extends ResidentOperation>(
    task: TaskOf<K>,
    signal: AbortSignal,
    onProgress: (fraction: number) => void,
    prepare: PrepareStep,
  ): Promise<{ outputs: TaskOutput[]; warnings: string[] }> {
    const call: ResidentCall<K> = this.residentCalls[task.operation];
    return call(task, signal, onProgress, prepare);
  }

  private officeConverter(): OfficeConverter {
    this.office ??= new OfficeConverter({
      instances: this.settings.officeInstances,
      maxConversionsPerInstance: 200,
      conversionTimeoutMs: 120_000,
      workDir: join(this.settings.workDir, "office"),
    });
    return this.office;
  }

  private htmlRenderer(): HtmlRenderer {
    this.browser ??= new HtmlRenderer({
      allowlist: this.settings.allowlist,
      maxJobsPerBrowser: 200,
      renderTimeoutMs: 120_000,
      maxPages: 500,
      maxBytes: 100 * 1024 * 1024,
      workDir: join(this.settings.workDir, "browser"),
    });
    return this.browser;
  }

  /**
   * Runs the task's resident engine; `prepare` runs the operation's sandbox step (RunnerSpec's prepare),
   * given the job's signal so the deadline stops it too.
   */
  async run(
    task: ResidentTask,
    options: {
      timeoutMs: number;
      onProgress: (fraction: number) => void;
      signal?: AbortSignal;
      prepare?: (inputs: ResidentTask["inputs"], signal: AbortSignal) => Promise<SandboxResult>;
    },
  ): Promise<SandboxResult> {
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    const prepare: PrepareStep = (inputs) => {
      if (!options.prepare) throw new Error(`${task.operation} has no prepare step`);
      return options.prepare(inputs, signal);
    };
    try {
      const { outputs, warnings } = await this.callResident(task, signal, options.onProgress, prepare);
      return { type: "done", outputs, engine: residentEngineOf(task.operation), warnings };
    } catch (error) {
      if (deadline.aborted) {
        return timedOutResult(options.timeoutMs);
      }
      if (error instanceof PrepareFailed) return error.result;
      if (error instanceof JobFailure)
        return { type: "failed", code: error.code, message: error.message, detail: error.detail };
      throw error;
    }
  }

  private async convertOffice(
    task: ResidentTask,
    signal: AbortSignal,
    onProgress: (fraction: number) => void,
  ): Promise<{ outputs: TaskOutput[]; warnings: string[] }> {
    const converter = this.officeConverter();
    const taken = new Set<string>();
    const outputs: TaskOutput[] = [];
    const warnings: string[] = [];
    for (const [index, input] of task.inputs.entries()) {
      const outDir = join(task.workDir, String(index));
      await mkdir(outDir, { recursive: true });
      const converted = await converter.convert(input, outDir, signal);
      outputs.push({ path: converted.path, name: uniqueName(converted.name, taken), contentType: PDF });
      warnings.push(...converted.warnings);
      onProgress((index + 1) / task.inputs.length);
    }
    return { outputs, warnings };
  }

  private async renderHtml(task: EngineTask<"html-to-pdf">, signal: AbortSignal): Promise<TaskOutput[]> {
    const { options } = task;
    const renderOptions: HtmlRenderOptions = {
      format: options.format,
      landscape: options.landscape,
      margin: options.margin,
      background: options.background,
      media: options.media,
    };
    const renderer = this.htmlRenderer();
    const [input] = task.inputs;
    await mkdir(task.workDir, { recursive: true });
    const outPath = join(task.workDir, "page.pdf");
    if (input) {
      await renderer.renderHtml(input.path, renderOptions, outPath, signal);
      return [{ path: outPath, name: `${input.name.replace(/\.html?$/i, "")}.pdf`, contentType: PDF }];
    }
    if (!options.url) throw new JobFailure("invalid_input", "Send an HTML file or options.url.");
    await renderer.renderUrl(options.url, renderOptions, outPath, signal);
    return [{ path: outPath, name: `${new URL(options.url).hostname}.pdf`, contentType: PDF }];
  }

  /** LibreOffice and Chromium started again after their first start (metrics). */
  restarts(): { libreoffice: number; chromium: number } {
    return {
      libreoffice: this.office?.restarts ?? 0,
      chromium: Math.max(0, (this.browser?.browserLaunches ?? 0) - 1),
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.office?.close(), this.browser?.close()]);
  }
}
