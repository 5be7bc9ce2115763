import { readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { Job } from "@octavo/contracts";
import { expect } from "vitest";

/** A small HTTP client over fetch, the way an API consumer would call octavo. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | undefined,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.apiKey ? { authorization: `Bearer ${this.apiKey}`, ...extra } : extra;
  }

  async get(path: string): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const response = await fetch(path.startsWith("http") ? path : `${this.baseUrl}${path}`, {
      headers: this.headers(),
    });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      headers: response.headers,
    };
  }

  /** A request without a body (POST .../cancel, DELETE); the body is {} when the answer has none (204). */
  async send(
    method: "POST" | "DELETE" | "PUT",
    path: string,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers: this.headers() });
    const text = await response.text();
    return {
      status: response.status,
      body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
      headers: response.headers,
    };
  }

  async postJson(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: this.headers({ "content-type": "application/json" }),
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /**
   * Form A: files (read from disk, sent under the given names, in the field "file" or the named upload
   * field given) and optional options.
   */
  async postFiles(
    path: string,
    files: readonly { path: string; name?: string; field?: string }[],
    options?: unknown,
    extraFields: Record<string, string> = {},
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const form = new FormData();
    for (const file of files) {
      form.append(
        file.field ?? "file",
        new Blob([await readFile(file.path)]),
        file.name ?? basename(file.path),
      );
    }
    if (options !== undefined) form.append("options", JSON.stringify(options));
    for (const [name, value] of Object.entries(extraFields)) form.append(name, value);
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: this.headers(extraHeaders),
      body: form,
    });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      headers: response.headers,
    };
  }

  /** Waits for the job to end with long polls (?wait=), honouring 429 Retry-After like a real client. */
  async waitForJob(jobId: string, timeoutMs = 120_000): Promise<JobBody> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await this.get(`/v1/jobs/${jobId}?wait=20`);
      if (answer.status === 429) {
        await delay(Number(answer.headers.get("retry-after") ?? 1) * 1000);
        continue;
      }
      const job = answer.body as unknown as JobBody;
      if (job.status === "done" || job.status === "failed") return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    }
  }

  async download(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
    const response = await fetch(url);
    return {
      status: response.status,
      bytes: Buffer.from(await response.arrayBuffer()),
      headers: response.headers,
    };
  }

  /** Downloads an output link (200 expected) into `path`, and returns the path. */
  async downloadTo(url: string | undefined, path: string): Promise<string> {
    const answer = await this.download(url ?? "");
    expect(answer.status).toBe(200);
    await writeFile(path, answer.bytes);
    return path;
  }
}

/**
 * One file through an operation, as a client would: POST it (202 expected), wait for the job and, when
 * it is done, download its first output (200 expected) into `dir`.
 */
export async function runOnFile(
  client: Client,
  dir: string,
  path: string,
  file: string,
  options?: unknown,
): Promise<{ job: JobBody; output: string }> {
  const created = await client.postFiles(path, [{ path: file }], options);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const job = await client.waitForJob(created.body.id as string, 240_000);
  const output = join(dir, `${job.id}-${job.outputs?.[0]?.name ?? "output"}`);
  if (job.status === "done") {
    const download = await client.download(job.outputs?.[0]?.url ?? "");
    expect(download.status).toBe(200);
    await writeFile(output, download.bytes);
  }
  return { job, output };
}

export interface JobBody {
  id: string;
  status: "queued" | "active" | "done" | "failed";
  progress: number;
  operation: string;
  credits: number;
  livemode: boolean;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  outputs?: {
    name: string;
    size: number;
    contentType: string;
    url?: string;
    urlExpiresAt?: string;
    expired: boolean;
    deleted?: true;
  }[];
  error?: string;
  message?: string;
  warnings?: Job["warnings"];
  compression?: Job["compression"];
  redaction?: Job["redaction"];
  verification?: Job["verification"];
  form?: Job["form"];
  steps?: Job["steps"];
}
