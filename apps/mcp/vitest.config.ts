import { octavoProject } from "../../scripts/vitest/project.js";

export default octavoProject({ name: "@octavo/mcp" });
