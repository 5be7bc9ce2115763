import { octavoProject } from "../../scripts/vitest/project.js";

// Loopback servers only; every case is bounded, so short timeouts catch a hang quickly.
export default octavoProject({ name: "@octavo/net", testTimeout: 10_000, hookTimeout: 10_000 });
