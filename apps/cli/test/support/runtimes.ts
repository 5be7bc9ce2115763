import { join } from "node:path";

/** The SDK package's directory; its dist is built before the tests run. */
export const clientPackageDir = join(import.meta.dirname, "..", "..", "..", "..", "packages", "client");

/**
 * Runtimes besides the tests' own Node 24, installed from npm as the SDK package's devDependencies:
 * Deno and Bun for its core, and Node.js 20.8, the oldest it supports.
 */
export const runtimes = {
  deno: join(clientPackageDir, "node_modules", ".bin", "deno"),
  bun: join(clientPackageDir, "node_modules", ".bin", "bun"),
  node20: join(clientPackageDir, "node_modules", "node-20", "bin", "node"),
};
