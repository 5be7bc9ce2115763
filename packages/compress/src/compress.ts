import { copyFile, mkdir, mkdtemp, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import {
  type Assessment,
  displayName,
  JobFailure,
  openSource,
  pdfNameLike,
  RepairCascade,
  type Rewrite,
  rewriteWithMupdf,
  rewriteWithQpdf,
  runOperation,
  tailDetailOf,
} from "@octavo/engines";
import { hasColour, lossOf, type PdfFacts, readFacts } from "./facts.js";
import { rewriteWithGhostscript } from "./ghostscript.js";
import { ImageCache, type ImagePassStats, recompressImages } from "./images.js";
import { losslessPass } from "./lossless.js";
import {
  describeSetting,
  type ImageSetting,
  imageSettings,
  type LadderStep,
  targetLadder,
} from "./settings.js";
import { type StageTimer, stageTimer } from "./stages.js";
import { ghostscriptLimitMs, qpdf } from "./tools.js";
import type {
  CompressContext,
  CompressInput,
  CompressionLevel,
  CompressionReport,
  CompressOptions,
  CompressResult,
} from "./types.js";

export const compressionLevels: readonly CompressionLevel[] = ["low", "recommended", "extreme"];
export const targetKBRange = { min: 20, max: 100_000 } as const;

const pdfContentType = "application/pdf";

/** A checked result: it keeps the input's pages, sizes, links, bookmarks and text. */
interface Candidate {
  path: string;
  bytes: number;
  /** What made it, in words (report.setting). */
  setting: string;
  engine: string;
  /** Its bytes without the image streams: what no image setting can take away. */
  nonImageBytes: number;
  /** Its `qpdf --check`, started when it was made if it was the smallest yet, else when first needed. */
  structure?: Promise<Structure>;
}

/**
 * Compresses one PDF. `low` is lossless; `recommended` and `extreme` resample and re-encode images (see
 * settings.ts); `targetKB` searches from gentle to strong settings for the first result under the target.
 * The input goes through @octavo/engines' openSource first (refuses non-PDFs, encrypted files and protected
 * wrappers; rebuilds damaged files), and a source that fails `qpdf --check` is rebuilt into a sound copy.
 * Every result is checked against the input (pages, page sizes, links, bookmarks, text) and must pass
 * `qpdf --check`. A result that is not smaller than the input is never returned: the input is, unchanged,
 * with a warning — unless the input itself is damaged, then the smallest sound copy is returned even when
 * it is larger (see docs/engines.md, "Compress", "Behaviour decided here").
 */
export async function compress(
  input: CompressInput,
  options: CompressOptions,
  ctx: CompressContext,
): Promise<CompressResult> {
  const name = displayName(input.name);
  checkOptions(options);
  return runOperation(ctx, name, async (scratchDir) => {
    const result = await compressIn(scratchDir, input, name, options, {
      ...ctx,
      timed: stageTimer(ctx.onStage),
    });
    return { ...result, outputs: await deliver(result.chosenPath, input.name, ctx.workDir) };
  });
}

function checkOptions(options: CompressOptions): void {
  if (!compressionLevels.includes(options.level)) {
    throw new JobFailure("invalid_input", `Unknown compression level "${String(options.level)}".`);
  }
  const target = options.targetKB;
  if (
    target !== undefined &&
    (!Number.isInteger(target) || target < targetKBRange.min || target > targetKBRange.max)
  ) {
    throw new JobFailure(
      "invalid_input",
      `targetKB must be a whole number from ${targetKBRange.min} to ${targetKBRange.max}.`,
    );
  }
}

async function deliver(
  path: string,
  clientName: string,
  workDir: string,
): Promise<{ path: string; name: string; contentType: string }[]> {
  const dir = await mkdtemp(join(resolve(workDir), "compress-"));
  const output = join(dir, "compressed.pdf");
  await copyFile(path, output);
  return [{ path: output, name: pdfNameLike(clientName), contentType: pdfContentType }];
}

/** A job's context inside the package: the caller's, and the clock its stages are timed on. */
interface JobContext extends CompressContext {
  timed: StageTimer;
}

interface Outcome {
  chosenPath: string;
  engine: string;
  warnings: string[];
  report: CompressionReport;
}

async function compressIn(
  scratchDir: string,
  input: CompressInput,
  name: string,
  options: CompressOptions,
  ctx: JobContext,
): Promise<Outcome> {
  const inputPath = resolve(input.path);
  const inputBytes = (await stat(inputPath)).size;
  const sourceDir = join(scratchDir, "source");
  await mkdir(sourceDir);
  const source = await ctx.timed(
    "preflight",
    openSource({ path: inputPath, name: input.name }, sourceDir, ctx.signal),
  );
  const warnings = [...source.warnings];
  const checking = ctx.timed("qpdf --check source", qpdfCheck(source.path, ctx.signal));
  checking.catch(() => undefined); // awaited below, or waited for when reading the facts fails
  const facts = await ctx
    .timed("facts of the source", readFacts(source.path, ctx.signal))
    .catch(async (error: unknown) => {
      await checking.catch(() => undefined);
      throw error;
    });
  const steps = ladderOf(options);
  const early = startEarly(source.path, facts, scratchDir, options.grayscale, ctx, steps[0] as LadderStep);
  const structure = await checking.catch(async (error: unknown) => {
    await early.discard();
    throw error;
  });
  if (!structure.sound) await early.discard();
  ctx.onProgress?.(0.1);

  // The input may come back unchanged only when the preflight took it as it is and qpdf finds no error in it.
  const originalSound = source.path === inputPath && structure.sound;
  let base = { path: source.path, engine: "" };
  if (!structure.sound) {
    const repaired = await repairSource(source.path, facts, scratchDir, ctx.signal);
    if (repaired === undefined) throw unrepairable(name, structure.problem);
    warnings.push(
      `${name} is damaged (${structure.problem}); ${repaired.engine} rebuilt it before compressing.`,
    );
    base = repaired;
  }
  // A sound copy of a damaged input, returned when nothing smaller is made (for gray, only when it has no colour).
  const soundCopy = async (): Promise<Candidate> => ({
    path: base.path,
    bytes: (await stat(base.path)).size,
    setting: "repaired copy of the damaged original, not compressed further",
    engine: base.engine === "" ? "qpdf or MuPDF (rebuild)" : base.engine,
    nonImageBytes: 0,
  });
  const fallback = originalSound || options.grayscale ? undefined : await soundCopy();

  const maker = structure.sound
    ? early.maker
    : new CandidateMaker(base.path, base.engine, facts, scratchDir, options.grayscale, ctx);
  try {
    const targetBytes = options.targetKB === undefined ? undefined : options.targetKB * 1024;

    let best: Candidate | undefined;
    for (let index = 0; index < steps.length; index += 1) {
      const step = steps[index] as LadderStep;
      const made = await (index === 0 && structure.sound ? early.made : maker.make(step));
      best = await maker.smallestSound(made.candidates, best);
      ctx.onProgress?.(0.1 + (0.85 * (index + 1)) / steps.length);
      if (targetBytes === undefined) continue;
      const smallest = Math.min(
        best?.bytes ?? Number.POSITIVE_INFINITY,
        originalSound ? inputBytes : (fallback?.bytes ?? Number.POSITIVE_INFINITY),
      );
      if (smallest <= targetBytes) break;
      // Stronger steps only change images. When this step's image pass found nothing any setting changes,
      // they would make the same files again; when what is not images already exceeds the target, only the
      // strongest step can still make the result smaller, so the steps between are skipped.
      if (step.kind !== "images") continue;
      if (!made.settingMatters) break;
      if (made.nonImageFloor > targetBytes && index < steps.length - 2) index = steps.length - 2;
    }
    warnings.push(...maker.warnings);

    let chosen = best !== undefined && best.bytes < inputBytes ? best : undefined;
    // Gray asked of a file with no colour (black text, say): nothing needs graying, so the file itself, or
    // its sound copy, is a gray result. Ghostscript's gray rewrite of a small file is seldom smaller.
    const colourless = options.grayscale && chosen === undefined && !(await hasColour(base.path, ctx.signal));
    const copy = fallback ?? (colourless && !originalSound ? await soundCopy() : undefined);
    if (chosen === undefined && !originalSound) {
      // The damaged original is not a valid result: the smallest sound copy is, even when it is larger.
      chosen = [best, copy]
        .filter((candidate) => candidate !== undefined)
        .sort((a, b) => a.bytes - b.bytes)[0];
      if (chosen !== undefined && chosen.bytes >= inputBytes) {
        warnings.push(
          `${name} is damaged and could not be made smaller; a sound repaired copy is returned instead of the damaged original (${Math.round((chosen.bytes / inputBytes) * 100)} % of its size).`,
        );
      }
    }
    if (chosen === undefined && options.grayscale && !colourless) {
      // Gray is what was asked for: a gray result that is not smaller is still the answer.
      if (best === undefined) {
        throw new JobFailure(
          "conversion_failed",
          `${name} could not be converted to grayscale without losing content (${maker.lastProblem ?? "no gray result kept all of it"}).`,
        );
      }
      chosen = best;
      warnings.push(
        `${name} is now in grayscale but could not be made smaller (${Math.round((best.bytes / inputBytes) * 100)} % of its size).`,
      );
    }
    if (chosen === undefined && !originalSound)
      throw unrepairable(name, maker.lastProblem ?? structure.problem);
    const outputBytes = chosen?.bytes ?? inputBytes;
    if (chosen === undefined) {
      const why = colourless
        ? `${name} has no colour to remove and could not be made smaller`
        : `${name} could not be made smaller${options.targetKB === undefined ? " at this level" : ""}`;
      warnings.push(`${why}; the original file is returned unchanged.`);
    }
    const report: CompressionReport = {
      inputBytes,
      outputBytes,
      ratio: Number((outputBytes / inputBytes).toFixed(4)),
      setting: chosen === undefined ? "original (unchanged)" : chosen.setting,
    };
    if (targetBytes !== undefined && options.targetKB !== undefined) {
      report.targetKB = options.targetKB;
      report.targetMet = outputBytes <= targetBytes;
      if (!report.targetMet) {
        warnings.push(
          `${name} could not be brought under ${options.targetKB} KB; the smallest result is ${Math.ceil(outputBytes / 1024)} KB (${Math.round((outputBytes / inputBytes) * 100)} % of the original).`,
        );
      }
    }
    return {
      chosenPath: chosen?.path ?? inputPath,
      engine: chosen?.engine ?? "none",
      warnings,
      report,
    };
  } finally {
    // No qpdf --check started for a candidate outlives the job.
    await maker.drain();
  }
}

function ladderOf(options: CompressOptions): readonly LadderStep[] {
  if (options.targetKB !== undefined) return targetLadder;
  return options.level === "low"
    ? [{ kind: "lossless" }]
    : [{ kind: "images", setting: imageSettings[options.level] }];
}

/**
 * The ladder's first step on the source, started while `qpdf --check` still reads the source (up to 1.3 s
 * on the bench files): most inputs are sound, and keep it. For one that is not, `discard` stops the step's
 * tools and waits for them; the ladder then starts again on the rebuilt source.
 */
function startEarly(
  source: string,
  facts: PdfFacts,
  scratchDir: string,
  gray: boolean,
  ctx: JobContext,
  step: LadderStep,
): { maker: CandidateMaker; made: Promise<StepResult>; discard: () => Promise<void> } {
  const stop = new AbortController();
  const signal = ctx.signal === undefined ? stop.signal : AbortSignal.any([ctx.signal, stop.signal]);
  const maker = new CandidateMaker(source, "", facts, scratchDir, gray, { ...ctx, signal });
  const made = maker.make(step);
  made.catch(() => undefined); // awaited by the ladder, or dropped by discard
  return {
    maker,
    made,
    async discard() {
      stop.abort(new Error("the source is damaged; the step starts again on its rebuilt copy"));
      await Promise.allSettled([made]);
      await maker.drain();
    },
  };
}

function unrepairable(name: string, problem: string | undefined): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `${name} is damaged${problem === undefined ? "" : ` (${problem})`}, and no engine could rebuild it into a sound PDF that keeps its pages, text, links and bookmarks, so it cannot be compressed. Try the repair operation on it first.`,
  );
}

/** What `qpdf --check` says of a file: sound when it exits 0 or 3 (warnings only). */
interface Structure {
  sound: boolean;
  pages: number | undefined;
  /** qpdf's first error without the file's path, e.g. "qpdf --check: Loop detected in /Pages structure …". */
  problem: string | undefined;
}

async function qpdfCheck(path: string, signal: AbortSignal | undefined): Promise<Structure> {
  const outcome = await qpdf(["--check", "--show-npages", "--", path], signal);
  const lines = `${outcome.stdout}\n${outcome.stderr}`.split("\n").map((line) => line.trim());
  const counts = lines.filter((line) => /^\d+$/.test(line));
  const pages = counts.length > 0 ? Number.parseInt(counts[counts.length - 1] ?? "", 10) : undefined;
  if (outcome.ok) return { sound: true, pages, problem: undefined };
  const error =
    lines.find((line) => line.startsWith("ERROR:")) ?? lines.find((line) => line.startsWith("WARNING:"));
  const crashed = outcome.exitCode === null || outcome.exitCode > 3;
  const said = (error ?? "errors found").replace(/^(ERROR|WARNING): /, "").replaceAll(path, "the file");
  const problem = crashed ? "qpdf --check crashed on it" : `qpdf --check: ${said.slice(0, 160)}`;
  return { sound: false, pages, problem };
}

/**
 * A sound copy of a source that fails `qpdf --check`, from repair's cascade (which also checks that MuPDF,
 * qpdf and poppler agree and that no bookmark loops): qpdf's rewrite (keeps everything, fixes broken
 * cross-references and object streams), then MuPDF with content streams sanitized (drops undecodable data and
 * out-of-range numbers), then Ghostscript (a new page tree: breaks page-tree loops). Unlike repair, compress
 * takes only a copy with every page and everything else the source has, and stops at the first.
 */
async function repairSource(
  source: string,
  facts: PdfFacts,
  scratchDir: string,
  signal: AbortSignal | undefined,
): Promise<{ path: string; engine: string } | undefined> {
  const cascade = new RepairCascade(scratchDir, signal);
  const keepsEverything = async (assessment: Assessment, path: string) =>
    assessment.pages === facts.pages && (await examine(path, facts, false, signal)).problem === undefined;
  const attempts: [engine: string, make: (output: string) => Promise<Rewrite>][] = [
    ["qpdf", (output) => rewriteWithQpdf(source, output, { rebuildPageTree: false, signal })],
    ["MuPDF (sanitized)", (output) => rewriteWithMupdf(source, output, { sanitize: true })],
    [
      "Ghostscript",
      async (output) => {
        const timeoutMs = ghostscriptLimitMs(facts.pages);
        const outcome = await rewriteWithGhostscript(source, output, {
          gray: false,
          legacy: false,
          signal,
          timeoutMs,
        });
        return outcome.ok
          ? { ok: true, messages: [] }
          : { ok: false, messages: [], detail: tailDetailOf(outcome.stderr) };
      },
    ],
  ];
  for (const [engine, make] of attempts) {
    signal?.throwIfAborted();
    await cascade.attempt(engine, make, keepsEverything);
    const best = cascade.best();
    if (best !== undefined) return { path: best.path, engine: best.engine };
  }
  return undefined;
}

/**
 * Why a result is unusable (undefined when it keeps everything the input has; `qpdf --check` is separate),
 * and the bytes of its image streams.
 */
async function examine(
  path: string,
  facts: PdfFacts,
  gray: boolean,
  signal: AbortSignal | undefined,
): Promise<{ problem: string | undefined; imageBytes: number }> {
  let found: PdfFacts;
  try {
    found = await readFacts(path, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return { problem: "MuPDF cannot read the result", imageBytes: 0 };
  }
  const loss = lossOf(facts, found);
  if (loss !== undefined) return { problem: loss, imageBytes: found.imageBytes };
  if (gray && (await hasColour(path, signal))) {
    return { problem: "colour left after the gray conversion", imageBytes: found.imageBytes };
  }
  return { problem: undefined, imageBytes: found.imageBytes };
}

type Base = "source" | "ghostscript" | "ghostscript-legacy";

const baseNames: Record<Base, string> = {
  source: "",
  ghostscript: "Ghostscript",
  "ghostscript-legacy": "Ghostscript (legacy interpreter)",
};

/** What one route made: its candidate (undefined when it failed or lost something), and whether the image setting mattered. */
interface RouteResult {
  candidate: Candidate | undefined;
  settingMatters: boolean;
}

/** The checked results of one ladder step, and what they say about the steps after it. */
interface StepResult {
  /** Smallest first; not yet run through `qpdf --check` (see `smallestSound`). */
  candidates: Candidate[];
  /** False when every image pass of the step left every image for a reason no setting changes. */
  settingMatters: boolean;
  /** The smallest `nonImageBytes` of the step's results: no image setting gets below it. */
  nonImageFloor: number;
}

/**
 * Makes and checks the result of one setting. Without grayscale there are two routes and the smaller
 * checked result wins: the image pass on the file itself (keeps its structure exactly), and the image pass
 * on Ghostscript's rewrite of it (fonts subset and compressed, which the image pass cannot do). With
 * grayscale, Ghostscript's gray rewrite is the base of every route. Each route ends with the lossless pass.
 *
 * The routes run side by side: Ghostscript works in its own process while the image pass works on the
 * file itself, and the images both routes share are re-encoded once (`ImageCache`).
 */
class CandidateMaker {
  readonly warnings: string[] = [];
  lastProblem: string | undefined;
  private readonly rewrites = new Map<Base, Promise<string | undefined>>();
  private readonly images = new ImageCache();
  /** How long the current interpreter's rewrite took: the legacy one gets a few times as long. */
  private currentInterpreterMs: number | undefined;
  /** Bases whose results lost something: every setting would lose it too, so they are not tried again. */
  private readonly rejected = new Set<Base>();
  /** The smallest candidate made so far: a smaller one has its `qpdf --check` started at once. */
  private smallestBytes = Number.POSITIVE_INFINITY;
  private readonly checks: Promise<Structure>[] = [];
  private made = 0;

  constructor(
    private readonly source: string,
    /** The engine that rebuilt the source, "" when it is the input (or the preflight's rebuild). */
    private readonly sourceEngine: string,
    private readonly facts: PdfFacts,
    private readonly scratchDir: string,
    private readonly gray: boolean,
    private readonly ctx: JobContext,
  ) {}

  async make(step: LadderStep): Promise<StepResult> {
    const chains: Base[][] = [];
    if (!this.gray) chains.push(["source"]);
    // Ghostscript rewrites fonts and content: it is for the lossy steps (and gray, which needs it). Its
    // legacy interpreter is the fallback when the current one's result loses something.
    if (this.gray || step.kind === "images") chains.push(["ghostscript", "ghostscript-legacy"]);
    // Settled, not Promise.all: a route that fails must not leave the other one's tools running.
    const settled = await Promise.allSettled(chains.map((chain) => this.firstOf(chain, step)));
    const failed = settled.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    const routed = settled.flatMap((outcome) => (outcome.status === "fulfilled" ? outcome.value : []));
    const candidates = routed
      .flatMap((result) => (result.candidate === undefined ? [] : [result.candidate]))
      .sort((a, b) => a.bytes - b.bytes);
    const settingMatters = step.kind === "lossless" || routed.some((result) => result.settingMatters);
    const nonImageFloor = Math.min(...candidates.map((candidate) => candidate.nonImageBytes));
    // No result at all: nothing is known about later steps, so they must be tried.
    return { candidates, settingMatters: settingMatters || candidates.length === 0, nonImageFloor };
  }

  /** The routes of `chain` in turn, until one makes a candidate; what each of them found. */
  private async firstOf(chain: Base[], step: LadderStep): Promise<RouteResult[]> {
    const results: RouteResult[] = [];
    for (const base of chain) {
      if (this.rejected.has(base)) continue;
      this.ctx.signal?.throwIfAborted();
      const path = base === "source" ? this.source : await this.rewrite(base);
      if (path === undefined) continue;
      const result = await this.route(path, base, step);
      results.push(result);
      if (result.candidate !== undefined) break;
    }
    return results;
  }

  /**
   * The smallest of `candidates` that is smaller than `best` and passes `qpdf --check` with the input's page
   * count, or `best`. `qpdf --check` reads every stream (1.5 s on GeoTopo): it runs for a candidate that was
   * the smallest when it was made (beside the other route), and for the others only when they are reached.
   */
  async smallestSound(candidates: Candidate[], best: Candidate | undefined): Promise<Candidate | undefined> {
    for (const candidate of candidates) {
      if (best !== undefined && candidate.bytes >= best.bytes) break;
      const structure = await this.check(candidate);
      if (!structure.sound) {
        this.lastProblem = `the result is not sound (${structure.problem})`;
        continue;
      }
      if (structure.pages !== this.facts.pages) {
        this.lastProblem = "qpdf counts other pages";
        continue;
      }
      return candidate;
    }
    return best;
  }

  /** Waits for every `qpdf --check` started, whatever it found. */
  async drain(): Promise<void> {
    await Promise.allSettled(this.checks);
  }

  private check(candidate: Candidate): Promise<Structure> {
    if (candidate.structure === undefined) {
      const structure = this.ctx.timed(
        `qpdf --check ${basename(candidate.path)}`,
        qpdfCheck(candidate.path, this.ctx.signal),
      );
      // Awaited by smallestSound or drain; a failure is reported there, not as an unhandled rejection.
      structure.catch(() => undefined);
      this.checks.push(structure);
      candidate.structure = structure;
    }
    return candidate.structure;
  }

  private async route(base: string, kind: Base, step: LadderStep): Promise<RouteResult> {
    this.made += 1;
    const tag = `c${this.made}`;
    const engines = kind === "source" ? [] : [baseNames[kind]];
    if (this.sourceEngine !== "") engines.unshift(this.sourceEngine);
    let input = base;
    let settingMatters = step.kind === "lossless";
    if (step.kind === "images") {
      const imaged = join(this.scratchDir, `${tag}-images.pdf`);
      const stats = await this.imagePass(base, imaged, step.setting);
      settingMatters = stats === undefined || stats.replaced > 0 || (stats.kept["no gain"] ?? 0) > 0;
      if (stats !== undefined && stats.replaced > 0) {
        input = imaged;
        engines.push("MuPDF + sharp");
      }
    }
    const lossless = await this.ctx.timed(
      `lossless pass ${tag} (${kind})`,
      losslessPass(input, this.scratchDir, tag, this.ctx.signal),
    );
    if (lossless === undefined) {
      this.lastProblem = "the lossless rewrite failed";
      return { candidate: undefined, settingMatters };
    }
    engines.push(lossless.route);
    const { problem, imageBytes } = await this.ctx.timed(
      `facts of ${basename(lossless.path)}`,
      examine(lossless.path, this.facts, this.gray, this.ctx.signal),
    );
    if (problem !== undefined) {
      this.lastProblem = problem;
      this.rejected.add(kind);
      return { candidate: undefined, settingMatters };
    }
    const bytes = (await stat(lossless.path)).size;
    const candidate: Candidate = {
      path: lossless.path,
      bytes,
      setting: describeSetting(step),
      engine: engines.join(" + "),
      nonImageBytes: Math.max(0, bytes - imageBytes),
    };
    if (bytes < this.smallestBytes) {
      this.smallestBytes = bytes;
      void this.check(candidate);
    }
    return { candidate, settingMatters };
  }

  private async imagePass(
    input: string,
    output: string,
    setting: ImageSetting,
  ): Promise<ImagePassStats | undefined> {
    try {
      return await this.ctx.timed(
        `image pass ${basename(output)}`,
        recompressImages(input, output, setting, this.ctx.signal, this.images),
      );
    } catch (error) {
      if (this.ctx.signal?.aborted) throw error;
      this.lastProblem = `the image pass failed: ${error instanceof Error ? error.message : String(error)}`;
      return undefined;
    }
  }

  /**
   * Ghostscript's rewrite of the source (gray when asked), made once and shared by every step. Its time limit
   * grows with the page count (`ghostscriptLimitMs`); the legacy interpreter, a fallback, gets at most four
   * times what the current one took (at least 10 s): on damaged files it can loop where the current one takes
   * a second. A rewrite over its limit drops the route, not the job; so does a rewrite that lost content.
   */
  private rewrite(base: Exclude<Base, "source">): Promise<string | undefined> {
    let made = this.rewrites.get(base);
    if (made === undefined) {
      made = (async () => {
        const output = join(this.scratchDir, `${base}${this.gray ? "-gray" : ""}.pdf`);
        const legacy = base === "ghostscript-legacy";
        const pageLimit = ghostscriptLimitMs(this.facts.pages);
        const timeoutMs =
          legacy && this.currentInterpreterMs !== undefined
            ? Math.min(pageLimit, Math.max(10_000, 4 * this.currentInterpreterMs))
            : pageLimit;
        const started = Date.now();
        const outcome = await this.ctx.timed(
          baseNames[base],
          rewriteWithGhostscript(this.source, output, {
            gray: this.gray,
            legacy,
            signal: this.ctx.signal,
            timeoutMs,
          }),
        );
        if (!legacy && !outcome.timedOut) this.currentInterpreterMs = Date.now() - started;
        if (outcome.timedOut) {
          this.lastProblem = `${baseNames[base]} took longer than ${Math.round(timeoutMs / 1000)} s`;
          return undefined;
        }
        if (!outcome.ok) {
          this.lastProblem = `${baseNames[base]} failed (exit ${outcome.exitCode})`;
          return undefined;
        }
        // The image and lossless passes keep pages, links, bookmarks and text: a rewrite that lost any of
        // them is dropped before they run on it (GeoTopo: the current interpreter drops a link).
        const { problem } = await this.ctx.timed(
          `facts of ${basename(output)}`,
          examine(output, this.facts, this.gray, this.ctx.signal),
        );
        if (problem !== undefined) {
          this.lastProblem = `${baseNames[base]}: ${problem}`;
          return undefined;
        }
        return output;
      })();
      this.rewrites.set(base, made);
    }
    return made;
  }
}
