import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/api", include: ["test/**/*.test.ts"] } });
