import { octavoProject } from "../../scripts/vitest/project.js";

// Real LibreOffice on real files: a cold start takes ~1.3 s, the largest corpus files 6-20 s each.
export default octavoProject({ name: "@octavo/office" });
