import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/**
 * After the default report, the slowest test files with the seconds each took (import, hooks and
 * tests): where a run's time goes, and the figures sequencer.ts's table is kept from.
 */
export class SlowestFiles implements Reporter {
  constructor(private readonly count: number) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => {
        const { collectDuration, duration } = module.diagnostic();
        return {
          file: relative(process.cwd(), module.moduleId),
          seconds: (collectDuration + duration) / 1000,
        };
      })
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, this.count);
    if (rows.length === 0) return;
    const lines = rows.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(8)} s  ${file}`);
    process.stdout.write(`\n Slowest ${rows.length} test files\n${lines.join("\n")}\n`);
  }
}
