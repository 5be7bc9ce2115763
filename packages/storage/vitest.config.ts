import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/storage", include: ["test/**/*.test.ts"] } });
