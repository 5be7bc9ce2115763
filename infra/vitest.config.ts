import { octavoProject } from "../scripts/vitest/project.js";

// Runs Debian's docker-compose, kubectl's kustomize and the schema and Dockerfile validators: each
// case takes a few seconds at most, but docker-compose (Python) starts slowly on a 2-core machine.
export default octavoProject({ name: "@octavo/infra" });
