import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/contracts", include: ["test/**/*.test.ts"] } });
