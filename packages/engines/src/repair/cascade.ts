import { join } from "node:path";
import type { Rewrite } from "../rewrite.js";
import { rewriteWithMupdf } from "../rewrite.js";
import { type Assessment, assess } from "./assess.js";

export interface Candidate {
  engine: string;
  path: string;
  assessment: Assessment;
  messages: string[];
  /** Meets every check, so it may be delivered. */
  valid: boolean;
}

type Maker = (output: string) => Promise<Rewrite>;

/** A caller's own test of a candidate that passed the shared checks (compress also wants every page and font kept). */
export type Acceptance = (assessment: Assessment, path: string) => boolean | Promise<boolean>;

/**
 * Collects repaired candidates from engine after engine. A candidate that fails `qpdf --check` or keeps a
 * bookmark loop is put through MuPDF once more (content streams rewritten, loops cut) before judging it.
 */
export class RepairCascade {
  readonly candidates: Candidate[] = [];
  readonly failures: string[] = [];
  readonly #scratchDir: string;
  readonly #signal: AbortSignal | undefined;

  constructor(scratchDir: string, signal: AbortSignal | undefined) {
    this.#scratchDir = scratchDir;
    this.#signal = signal;
  }

  async attempt(engine: string, make: Maker, accept: Acceptance = () => true): Promise<void> {
    const path = join(this.#scratchDir, `candidate-${this.candidates.length + this.failures.length + 1}.pdf`);
    const made = await make(path);
    if (!made.ok) {
      this.failures.push(`${engine}: ${made.detail}`);
      return;
    }
    let candidate = await this.#judge(engine, path, made.messages, accept);
    if (!candidate.valid && candidate.assessment.pages !== undefined) {
      const fixedPath = path.replace(/\.pdf$/, "-fixed.pdf");
      const fixed = await rewriteWithMupdf(path, fixedPath, { sanitize: true });
      if (fixed.ok)
        candidate = await this.#judge(
          `${engine}+MuPDF`,
          fixedPath,
          [...made.messages, ...fixed.messages],
          accept,
        );
    }
    this.candidates.push(candidate);
  }

  /** True when a valid candidate has at least `pages` pages. */
  hasAtLeast(pages: number | undefined): boolean {
    return (
      pages !== undefined &&
      this.candidates.some((candidate) => candidate.valid && (candidate.assessment.pages ?? 0) >= pages)
    );
  }

  /**
   * The valid candidate with the most pages; among equals, the first (qpdf keeps most structure) whose
   * text is within 10 % of the best, so a rewrite that silently dropped text loses.
   */
  best(): Candidate | undefined {
    const valid = this.candidates.filter((candidate) => candidate.valid);
    const most = Math.max(0, ...valid.map((candidate) => candidate.assessment.pages ?? 0));
    const full = valid.filter((candidate) => candidate.assessment.pages === most);
    const text = Math.max(0, ...full.map((candidate) => candidate.assessment.textChars));
    return full.find((candidate) => candidate.assessment.textChars >= text * 0.9);
  }

  async #judge(engine: string, path: string, messages: string[], accept: Acceptance): Promise<Candidate> {
    const assessment = await assess(path, this.#signal);
    const valid = assessment.problem === undefined && (await accept(assessment, path));
    return { engine, path, assessment, messages, valid };
  }
}
