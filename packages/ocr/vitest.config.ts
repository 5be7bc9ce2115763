import { defineProject } from "vitest/config";

// Real services and real engines: integration cases take seconds on a 2-core machine.
export default defineProject({
  test: {
    name: "@octavo/ocr",
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
