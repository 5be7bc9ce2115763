import { defineProject } from "vitest/config";

// Real services and real engines: integration cases take seconds on a 2-core machine.
export default defineProject({
  test: {
    name: "@octavo/edit",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
