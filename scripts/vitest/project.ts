import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

/**
 * Test files running at once, in every project (a project's own setting; vitest reads no root default).
 * Three keep the machine's two cores busy while files wait on jobs, a webhook's retry schedule or a
 * rate-limit window; files isolate by resource (database, queue prefix, data dir, port, account), not by
 * running alone. `--maxWorkers=1` runs them one at a time.
 */
const TEST_FILES_AT_ONCE = 3;

/** In a *.unit.test.ts file, starting a process or reaching PostgreSQL or Redis throws (see the file). */
const unitGuard = fileURLToPath(new URL("../../packages/testing/src/unit-guard.ts", import.meta.url));

/**
 * A package's or app's test project: its `test/**\/*.test.ts` (the unit files among them too), with the
 * unit guard and the run's parallelism. A timeout only catches a hang, it is no speed test: with three
 * files at once on two cores a case can take three times what it takes alone, so 180 s per test and
 * 300 s per hook unless the project says otherwise.
 */
export function octavoProject(test: { name: string; testTimeout?: number; hookTimeout?: number }) {
  return defineProject({
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: [unitGuard],
      maxWorkers: TEST_FILES_AT_ONCE,
      testTimeout: 180_000,
      hookTimeout: 300_000,
      ...test,
    },
  });
}
