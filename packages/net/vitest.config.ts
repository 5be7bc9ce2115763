import { defineProject } from "vitest/config";

// Loopback servers only; every case is bounded, so short timeouts catch a hang quickly.
export default defineProject({
  test: {
    name: "@octavo/net",
    include: ["test/**/*.test.ts"],
    testTimeout: 10_000,
    hookTimeout: 10_000,
  },
});
