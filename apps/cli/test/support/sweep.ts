import { AsyncLocalStorage } from "node:async_hooks";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kyselyOf } from "@octavo/db/repositories";
import { type CorpusEntry, corpusPath, readManifest, waitFor } from "@octavo/testing";
import { expect } from "vitest";
import { Client, type JobBody } from "./client.js";
import { type Stack, startStack } from "./stack.js";

/*
 * The corpus sweeps' harness: one stack (PostgreSQL, supervised Redis), four Business accounts so the
 * sweep stays inside each account's rate limit, and jobs run a few at a time to keep both workers busy.
 */

export const manifest = readManifest();

export const pdfsOf = (category: string): CorpusEntry[] =>
  manifest.filter((entry) => entry.category === category && entry.path.endsWith(".pdf"));

export const nameOf = (entry: CorpusEntry): string => entry.path.split("/").pop() ?? entry.path;

/** How a damaged or unreadable input may end, besides done: never `internal` or `timeout`. */
export const DAMAGED_CODES = ["invalid_input", "password_required", "conversion_failed"];

/** An input of a sweep job: a corpus entry, or any file on disk. */
export type SweepInput = CorpusEntry | { file: string };

export interface Sweep {
  readonly stack: Stack;
  /** The client of the chain this call runs in (the first one outside `each`). */
  currentClient(): Client;
  /** Posts the files (202 expected) and waits for the job to end. */
  submit(path: string, files: SweepInput[], options?: unknown): Promise<JobBody>;
  /** Downloads every output of a done job; each path ends with the output's own extension. */
  downloadAll(job: JobBody): Promise<string[]>;
  /** Runs `work` over the entries a few at a time, one chain per account. */
  each<T>(entries: T[], work: (entry: T) => Promise<void>): Promise<void>;
  /** Fails unless every job ended and every input was deleted. */
  expectNothingLeft(): Promise<void>;
  close(): Promise<void>;
}

export async function startSweep(): Promise<Sweep> {
  const stack = await startStack({ database: "postgres", redis: "supervised" });
  const clients = await Promise.all(
    Array.from(
      { length: 4 },
      async () => new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey),
    ),
  );
  const scratch = await mkdtemp(join(tmpdir(), "octavo-sweep-"));
  const chain = new AsyncLocalStorage<Client>();
  const currentClient = (): Client => chain.getStore() ?? clients[0] ?? new Client("", undefined);
  const pathOf = (input: SweepInput): string => ("file" in input ? input.file : corpusPath(input.path));

  return {
    stack,
    currentClient,
    async submit(path, files, options) {
      const client = currentClient();
      const created = await client.postFiles(
        path,
        files.map((input) => ({ path: pathOf(input) })),
        options,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      return client.waitForJob(created.body.id as string, 180_000);
    },
    async downloadAll(job) {
      const client = currentClient();
      const dir = await mkdtemp(join(scratch, "out-"));
      const paths: string[] = [];
      for (const [index, output] of (job.outputs ?? []).entries()) {
        const { status, bytes } = await client.download(output.url ?? "");
        expect(status).toBe(200);
        const extension = /\.[a-z]+$/i.exec(output.name)?.[0] ?? ".pdf";
        const path = join(dir, `${index}${extension}`);
        await writeFile(path, bytes);
        paths.push(path);
      }
      return paths;
    },
    async each(entries, work) {
      const queue = [...entries];
      await Promise.all(
        clients.map((client) =>
          chain.run(client, async () => {
            for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) await work(entry);
          }),
        ),
      );
    },
    async expectNothingLeft() {
      const unfinished = await kyselyOf(stack.runtime.database)
        .selectFrom("jobs")
        .select("id")
        .where("status", "in", ["queued", "active"])
        .execute();
      expect(unfinished).toEqual([]);
      const stored = () =>
        kyselyOf(stack.runtime.database)
          .selectFrom("job_files")
          .select("id")
          .where("role", "=", "input")
          .where("deleted_at", "is", null)
          .execute();
      // A client hears "done" as its job is settled; the worker deletes the inputs just after.
      await waitFor(
        "every input to be deleted",
        async () => ((await stored()).length === 0 ? true : undefined),
        10_000,
      ).catch(
        () => undefined, // the assertion below names what is left
      );
      expect(await stored()).toEqual([]);
    },
    async close() {
      await stack.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
