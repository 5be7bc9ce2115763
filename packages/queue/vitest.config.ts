import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/queue", include: ["test/**/*.test.ts"] } });
