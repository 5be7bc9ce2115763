import { defineProject } from "vitest/config";

// Real LibreOffice on real files: a cold start takes ~1.3 s, the largest corpus files 6-20 s each.
export default defineProject({
  test: {
    name: "@octavo/office",
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
