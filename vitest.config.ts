import { defineConfig } from "vitest/config";

// One run over every package and app. Integration tests share the machine's PostgreSQL and
// Redis, so files run one at a time; each file builds its own stack (see @octavo/testing).
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
