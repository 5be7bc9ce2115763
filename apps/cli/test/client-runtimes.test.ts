import { execFile, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { pageCount } from "./support/pdf-checks.js";
import { clientPackageDir, runtimes } from "./support/runtimes.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

// The SDK's core on the runtimes it promises beyond Node 24: Deno and Bun through its web entry
// (fetch, FormData, Blob, Web Crypto and nothing else), and Node.js 20 through its Node entry with
// file paths. Each runtime merges two PDFs against the real service, downloads the result and
// verifies a webhook signature made with node:crypto.

const sample = join(import.meta.dirname, "..", "..", "..", "examples", "sample-a.pdf");

/** A script using only web APIs: inputs fetched from `site`, the output read with bytes(). */
function webScript(sdk: string, baseUrl: string, apiKey: string, site: string, webhook: Webhook): string {
  return `
import { Octavo, verifyWebhook } from ${JSON.stringify(sdk)};
const client = new Octavo({ apiKey: ${JSON.stringify(apiKey)}, baseUrl: ${JSON.stringify(baseUrl)} });
const bytes = new Uint8Array(await (await fetch(${JSON.stringify(`${site}/a.pdf`)})).arrayBuffer());
const job = await client.run("merge", [bytes, new File([bytes], "second.pdf")]);
const output = await job.outputs[0].bytes();
const verified = await verifyWebhook(${JSON.stringify(webhook.body)}, ${JSON.stringify(webhook.header)}, "whsec_runtime");
console.log(JSON.stringify({ id: job.id, status: job.status, head: new TextDecoder().decode(output.slice(0, 5)), size: output.length, verified: verified.id }));
`;
}

/** The same on Node.js, with file paths in and out. */
function nodeScript(sdk: string, baseUrl: string, apiKey: string, dir: string, webhook: Webhook): string {
  return `
import { readFile } from "node:fs/promises";
import { Octavo, verifyWebhook } from ${JSON.stringify(sdk)};
const client = new Octavo({ apiKey: ${JSON.stringify(apiKey)}, baseUrl: ${JSON.stringify(baseUrl)} });
const job = await client.run("merge", [${JSON.stringify(sample)}, { path: ${JSON.stringify(sample)}, name: "second.pdf" }]);
const path = await job.outputs[0].download(${JSON.stringify(`${dir}/`)});
const output = await readFile(path);
const verified = await verifyWebhook(${JSON.stringify(webhook.body)}, ${JSON.stringify(webhook.header)}, "whsec_runtime");
console.log(JSON.stringify({ id: job.id, status: job.status, head: output.subarray(0, 5).toString(), size: output.length, verified: verified.id }));
`;
}

const webhookJobId = "8c0e7f4e-5bd5-4bd4-9a55-2f1d3f7c1a10";

interface Webhook {
  body: string;
  header: string;
}

function signedWebhook(): Webhook {
  const body = JSON.stringify({ id: webhookJobId, status: "done", progress: 1 });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac("sha256", "whsec_runtime").update(`${t}.${body}`).digest("hex");
  return { body, header: `t=${t},v1=${v1}` };
}

describe("the SDK on Deno, Bun and Node.js 20", () => {
  let stack: Stack;
  let site: LocalServer;
  let apiKey: string;
  let scratch: { path: string; dispose(): Promise<void> };

  beforeAll(async () => {
    const pdf = await readFile(sample);
    site = await startLocalServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end(pdf);
    });
    stack = await startStack({ database: "sqlite", redis: "supervised" });
    apiKey = (await stack.createAccount("business")).apiKey;
    scratch = await createTempDir("octavo-runtimes-");
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
    await scratch?.dispose();
  });

  async function run(name: string, command: string, args: string[], script: string): Promise<void> {
    const file = join(scratch.path, `${name}.mjs`);
    await writeFile(file, script);
    // Asynchronously: the service runs in this process and must keep answering.
    const result = await promisify(execFile)(command, [...args, file], {
      timeout: 90_000,
      cwd: scratch.path,
    });
    const printed = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(printed).toMatchObject({ status: "done", head: "%PDF-", verified: expect.any(String) });
    expect(printed.verified).toBe(webhookJobId);
    // What the runtime downloaded is the job's output: its size, and both inputs' pages in it.
    const job = await new Client(stack.baseUrl, apiKey).waitForJob(printed.id);
    expect(printed.size).toBe(job.outputs?.[0]?.size);
    const merged = join(scratch.path, `${name}.pdf`);
    await writeFile(
      merged,
      (await new Client(stack.baseUrl, apiKey).download(job.outputs?.[0]?.url ?? "")).bytes,
    );
    expect(await pageCount(merged)).toBe(2 * (await pageCount(sample)));
  }

  const webEntry = pathToFileURL(join(clientPackageDir, "dist", "index.js")).href;

  it("runs the core on Deno", async () => {
    const version = spawnSync(runtimes.deno, ["--version"], { encoding: "utf8" }).stdout;
    expect(version).toMatch(/^deno 2\./);
    const allow = [`--allow-net=127.0.0.1`, `--allow-read=${clientPackageDir}`];
    await run(
      "deno",
      runtimes.deno,
      ["run", "--no-prompt", ...allow],
      webScript(webEntry, stack.baseUrl, apiKey, site.url, signedWebhook()),
    );
  });

  it("runs the core on Bun", async () => {
    expect(spawnSync(runtimes.bun, ["--version"], { encoding: "utf8" }).stdout).toMatch(/^1\./);
    await run(
      "bun",
      runtimes.bun,
      ["run"],
      webScript(webEntry, stack.baseUrl, apiKey, site.url, signedWebhook()),
    );
  });

  it("runs the Node entry, with paths, on Node.js 20", async () => {
    expect(spawnSync(runtimes.node20, ["--version"], { encoding: "utf8" }).stdout).toMatch(/^v20\./);
    const nodeEntry = pathToFileURL(join(clientPackageDir, "dist", "node.js")).href;
    await run(
      "node20",
      runtimes.node20,
      [],
      nodeScript(nodeEntry, stack.baseUrl, apiKey, scratch.path, signedWebhook()),
    );
  });
});
