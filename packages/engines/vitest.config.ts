import { defineProject } from "vitest/config";

// Real engines on real files: the large-file cases take seconds on a 2-core machine.
export default defineProject({
  test: { name: "@octavo/engines", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
});
