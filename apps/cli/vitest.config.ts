import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/cli", include: ["test/**/*.test.ts"] } });
