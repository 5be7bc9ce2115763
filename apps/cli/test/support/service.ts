import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { waitFor } from "@octavo/testing";
import { Client } from "./client.js";
import { cliMain } from "./processes.js";
import { freePort } from "./stack.js";

/** `octavo start` as `npm start` runs it, in a process group of its own (as a shell runs a command). */
export interface ServiceProcess {
  process: ChildProcess;
  /** What it wrote on stdout and stderr so far. */
  output(): string;
  /** Its JSON log lines with this message. */
  logged(msg: string): { jobId?: string }[];
  /** A client of this account on it. */
  client(apiKey: string): Client;
}

/** The operator CLI on a data dir (exit status and stdout). */
export function octavoCli(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): { status: number | null; stdout: string } {
  const result = spawnSync(process.execPath, [cliMain, ...args], { env, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout };
}

/** A Business account made with the CLI: its id and API key. */
export function cliAccount(env: NodeJS.ProcessEnv, email: string): { accountId: string; apiKey: string } {
  return JSON.parse(octavoCli(env, "accounts", "create", "--email", email, "--plan", "business").stdout);
}

/** Starts the service on `env`'s data dir and resolves once its API listens. */
export async function startServiceProcess(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliMain, "start"], {
    env: { ...env, OCTAVO_PORT: String(port) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  const logged = (msg: string) =>
    output
      .split("\n")
      .filter((line) => line.startsWith("{") && line.includes(`"msg":"${msg}"`))
      .map((line) => JSON.parse(line) as { jobId?: string });
  await waitFor(
    "the API to listen",
    () => {
      if (child.exitCode !== null) throw new Error(`octavo start exited:\n${output}`);
      return logged("API listening").length > 0 ? true : undefined;
    },
    60_000,
  );
  return {
    process: child,
    output: () => output,
    logged,
    client: (apiKey) => new Client(`http://127.0.0.1:${port}`, apiKey),
  };
}
