import { defineProject } from "vitest/config";

// Runs Debian's docker-compose, kubectl's kustomize and the schema and Dockerfile validators: each
// case takes a few seconds at most, but docker-compose (Python) starts slowly on a 2-core machine.
export default defineProject({
  test: {
    name: "@octavo/infra",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
