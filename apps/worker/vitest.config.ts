import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/worker", include: ["test/**/*.test.ts"] } });
