import { defineProject } from "vitest/config";

// Real Chromium on a 2-core machine: a render takes a fraction of a second, a browser launch about one.
export default defineProject({
  test: {
    name: "@octavo/browser",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
