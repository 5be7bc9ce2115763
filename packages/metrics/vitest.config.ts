import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@octavo/metrics",
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
