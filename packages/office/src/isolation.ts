import { run } from "@octavo/engines";

/**
 * How LibreOffice is kept off the network.
 * - "namespace" (default): the helper and LibreOffice run in a new network namespace that has only a
 *   loopback interface, which is down: no connection to anything, even 127.0.0.1 of the host. The UNO
 *   link is a named pipe, a UNIX socket in /tmp, which the namespace does not affect.
 * - "external": the deployment already guarantees it (for example a container started with
 *   `--network none`); the converter then starts LibreOffice as it is.
 */
export type NetworkIsolation = "namespace" | "external";

// `--map-root-user` first: it needs no privilege where unprivileged user namespaces are allowed, so the
// same command works for a non-root service user in a container; plain `--net` needs CAP_SYS_ADMIN.
const candidates: readonly (readonly string[])[] = [
  ["unshare", "--net", "--map-root-user", "--"],
  ["unshare", "--net", "--"],
];

/** The command prefix that starts a program without network, found by trying each candidate once. */
export async function isolationPrefix(mode: NetworkIsolation): Promise<readonly string[]> {
  if (mode === "external") return [];
  const problems: string[] = [];
  for (const candidate of candidates) {
    const [program = "unshare", ...args] = candidate;
    try {
      const result = await run(program, [...args, "true"], { timeoutMs: 10_000, memoryBytes: null });
      if (result.exitCode === 0) return candidate;
      problems.push(`${candidate.join(" ")}: ${result.stderr.trim() || `exit ${result.exitCode}`}`);
    } catch (error) {
      problems.push(`${candidate.join(" ")}: ${String(error)}`);
    }
  }
  throw new Error(
    `cannot start LibreOffice without network: no network namespace could be created (${problems.join("; ")}). Allow user namespaces, or run the worker without network and set networkIsolation: "external".`,
  );
}
