import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "@octavo/testing", include: ["test/**/*.test.ts"] } });
