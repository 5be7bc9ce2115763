import { octavoProject } from "../../scripts/vitest/project.js";

// Real Chromium on a 2-core machine: a render takes a fraction of a second, a browser launch about one.
export default octavoProject({ name: "@octavo/browser" });
