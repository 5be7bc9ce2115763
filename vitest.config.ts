import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./scripts/vitest/sequencer.js";
import { SlowestFiles } from "./scripts/vitest/slowest-files.js";

// One run over every package and app; each project's config is scripts/vitest/project.ts's, which runs
// test files side by side. Unit files (*.unit.test.ts: no process, service or database) also run alone
// as `npm run test:unit`.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "infra"],
    sequence: { sequencer: SlowestFirst },
    reporters: ["default", new SlowestFiles(15)],
    coverage: {
      provider: "v8",
      include: ["apps/*/src/**", "packages/*/src/**"],
      reporter: ["text-summary", "json-summary"],
    },
  },
});
