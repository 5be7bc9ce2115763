import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/core", include: ["test/**/*.test.ts"] } });
