#!/usr/bin/env node
// Launcher for `npx octavo`: the CLI always runs on the project's pinned Node 24, even when the
// `node` on the PATH is older (scripts/setup.mjs installs it under .octavo/runtime).
//
// foreground-child runs the pinned Node as a foreground child: every signal the launcher gets (SIGTERM,
// SIGINT, SIGHUP…) is passed on, the launcher exits with the child's status (or dies of its signal), and a
// watchdog kills the child if the launcher itself is killed. A supervisor that signals only the main process
// (Docker, Kubernetes, systemd with KillMode=process) so stops octavo, not just the launcher.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const main = join(here, "..", "dist", "main.js");
const arch = process.arch === "arm64" ? "arm64" : "x64";
const pinnedNode = join(root, ".octavo", "runtime", "node_modules", `node-linux-${arch}`, "bin", "node");
const major = Number(process.versions.node.split(".")[0]);

if (major >= 24) {
  await import(main);
} else if (existsSync(pinnedNode)) {
  const { foregroundChild } = await import("foreground-child");
  foregroundChild(pinnedNode, [main, ...process.argv.slice(2)]);
} else {
  process.stderr.write("octavo needs Node.js 24: run `npm start` or `npm run setup` once to install it.\n");
  process.exit(1);
}
