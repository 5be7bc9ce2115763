import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@octavo/client-cli", include: ["test/**/*.test.ts"] },
});
