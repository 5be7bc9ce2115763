import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * About how many seconds the longest test files take in a whole run on the 2-core CI machine, three files
 * at a time (the per-file durations of `npm test`'s report, rounded to 5 s). Only the order of the run
 * depends on them: a stale figure costs a little time, never a result. Keep the files over about 30 s here.
 */
const expectedSeconds: Record<string, number> = {
  "packages/pdfa/test/pdfa.test.ts": 335,
  "apps/cli/test/hardening.test.ts": 225,
  "apps/cli/test/corpus-sweep-extras.test.ts": 195,
  "packages/pdf-office/test/corpus.test.ts": 190,
  "packages/ocr/test/behaviour.test.ts": 135,
  "apps/cli/test/corpus-sweep.test.ts": 120,
  "packages/ocr/test/corpus.test.ts": 110,
  "packages/office/test/supervision.test.ts": 90,
  "apps/cli/test/pdf-to-markdown.test.ts": 90,
  "apps/cli/test/contract/pipeline.test.ts": 85,
  "packages/images/test/pdf-to-image.test.ts": 70,
  "packages/pdf-office/test/markdown.test.ts": 60,
  "packages/compress/test/compress.test.ts": 70,
  "apps/cli/test/client-sdk.test.ts": 70,
  "packages/compress/test/damaged.test.ts": 55,
  "apps/cli/test/job-lifecycle.test.ts": 55,
  "apps/cli/test/cli.test.ts": 50,
  "apps/cli/test/contract/webhooks.test.ts": 50,
  "apps/cli/test/client-readme.test.ts": 45,
  "packages/engines/test/inputs.test.ts": 40,
  "apps/cli/test/client-cli.test.ts": 40,
  "packages/office/test/corpus.test.ts": 35,
  "packages/pdf-office/test/excel-corpus.test.ts": 35,
  "apps/cli/test/isolation.test.ts": 35,
  "apps/cli/test/dashboard.test.ts": 35,
  "apps/cli/test/pdf-tools.test.ts": 35,
  "apps/cli/test/redact.test.ts": 35,
  "apps/cli/test/cluster.test.ts": 30,
  "apps/cli/test/faults.test.ts": 30,
  "packages/ocr/test/inputs.test.ts": 30,
};

function expected(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll("\\", "/");
  const known = Object.entries(expectedSeconds).find(([file]) => path.endsWith(`/${file}`));
  return known?.[1] ?? 0;
}

/**
 * Runs the slowest files first, across every project, so that the run does not end with one long file
 * running alone while the other workers are idle. Vitest's own order (its cache of the last run's
 * durations, else the file size) runs the projects one after another; on a fresh clone there is no cache.
 * A file that failed last time still goes first, and a cached duration beats the table.
 */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const weight = (spec: TestSpecification) => {
      const last = cache.getTestSpecificationResult(spec);
      return {
        failed: last?.failed === true,
        seconds: last?.duration === undefined ? expected(spec) : last.duration / 1000,
      };
    };
    return files
      .map((spec) => ({ spec, ...weight(spec) }))
      .sort((a, b) => (a.failed !== b.failed ? (a.failed ? -1 : 1) : b.seconds - a.seconds))
      .map(({ spec }) => spec);
  }
}
