import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/db", include: ["test/**/*.test.ts"] } });
