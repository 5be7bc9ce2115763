import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/engines", include: ["test/**/*.test.ts"] } });
