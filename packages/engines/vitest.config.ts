import { octavoProject } from "../../scripts/vitest/project.js";

// Real engines on real files: the large-file cases take seconds on a 2-core machine.
export default octavoProject({ name: "@octavo/engines" });
