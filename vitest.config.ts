import { defineConfig } from "vitest/config";

// One run over every package and app. Integration tests share the machine's PostgreSQL and
// Redis and the 2 cores, so test files run one at a time; each file builds its own stack.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "infra"],
    fileParallelism: false,
  },
});
