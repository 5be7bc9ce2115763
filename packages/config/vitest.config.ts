import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/config", include: ["test/**/*.test.ts"] } });
