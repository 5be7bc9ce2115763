import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Octavo } from "@octavo/client";
import { operationIds } from "@octavo/contracts";
import { corpusPath, createTempDir } from "@octavo/testing";
import { Document, Packer, Paragraph } from "docx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { looksLike, type OperationSample, operationSamples } from "./support/operation-samples.js";
import { pdfText } from "./support/pdf-checks.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { freePort, type Stack, startStack } from "./support/stack.js";

// octavo-client, the customers' CLI (apps/client-cli), as a customer runs it: a separate Node process
// on the SDK, against the whole service with its real engines. Its pure logic (flags, output names,
// exit codes) has unit tests in apps/client-cli/test.

const bin = fileURLToPath(new URL("../../client-cli/bin/octavo-client.mjs", import.meta.url));
const sampleA = fileURLToPath(new URL("../../../examples/sample-a.pdf", import.meta.url));
const sampleB = fileURLToPath(new URL("../../../examples/sample-b.pdf", import.meta.url));
const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a run: the caller's without any OCTAVO_ setting, plus the given ones. */
function cliEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("OCTAVO_")) env[name] = value;
  }
  return { ...env, ...extra };
}

function spawnCollecting(command: string, args: string[], env: Record<string, string>, cwd?: string) {
  return new Promise<CliResult>((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `--name value` flags for a sample's options, the way a user types them. */
function flagsFor(options: Record<string, unknown> | undefined): string[] {
  return Object.entries(options ?? {}).flatMap(([name, value]) => {
    const flag = `--${name
      .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
      .toLowerCase()}`;
    if (value === true) return [flag];
    if (value === false) return [`--no-${flag.slice(2)}`];
    if (Array.isArray(value)) return [flag, value.join(",")];
    // An object option (Fill form's values) is given as JSON.
    return [flag, typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)];
  });
}

/** Runs `work` on every item, at most `limit` at a time. */
async function inBatches<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = items.values();
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (const item of queue) await work(item);
    }),
  );
}

describe("octavo-client against the service", () => {
  let stack: Stack;
  let site: LocalServer;
  let scratch: { path: string; dispose(): Promise<void> };
  let business: string;
  let free: string;
  let sdk: Octavo;

  beforeAll(async () => {
    const remotePdf = readFileSync(sampleB);
    site = await startLocalServer((req, res) => {
      if (req.url === "/files/remote.pdf") {
        res.setHeader("content-type", "application/pdf");
        res.end(remotePdf);
        return;
      }
      if (req.url === "/page.html") {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end("<html><body><h1>Served page</h1><p>Rendered from its address.</p></body></html>");
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    business = (await stack.createAccount("business")).apiKey;
    free = (await stack.createAccount("free")).apiKey;
    sdk = new Octavo({ apiKey: business, baseUrl: stack.baseUrl });
    scratch = await createTempDir("octavo-client-cli-");
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
    await scratch?.dispose();
  });

  /** `octavo-client <args>` with a key (the Business account's unless given) and the stack's address. */
  function cli(args: string[], options: { key?: string | null; baseUrl?: string; cwd?: string } = {}) {
    const key = options.key === undefined ? business : options.key;
    const env = cliEnv({
      OCTAVO_BASE_URL: options.baseUrl ?? stack.baseUrl,
      ...(key === null ? {} : { OCTAVO_API_KEY: key }),
    });
    return spawnCollecting(process.execPath, [bin, ...args], env, options.cwd);
  }

  function dir(name: string): string {
    const path = join(scratch.path, name);
    mkdirSync(path, { recursive: true });
    return path;
  }

  /** Not a terminal: no bar, no cursor movement; stderr holds at most the jobs' warnings. */
  function expectNoProgress(stderr: string) {
    for (const drawing of ["\r", "\u001b[", "█", "░"]) expect(stderr).not.toContain(drawing);
    for (const line of stderr.split("\n").filter((text) => text !== "")) {
      expect(line).toMatch(/^octavo-client: .+: warning: /);
    }
  }

  function expectOutputs(
    paths: readonly string[],
    sample: Pick<OperationSample, "outputExtension" | "outputs">,
  ) {
    expect(paths).toHaveLength(sample.outputs);
    for (const path of paths) {
      expect(extname(path)).toBe(sample.outputExtension);
      expect(statSync(path).size).toBeGreaterThan(0);
      expect(looksLike(readFileSync(path), sample.outputExtension), path).toBe(true);
    }
  }

  it("runs every operation, its options as flags, and writes outputs of the right type (--json)", async () => {
    expect(Object.keys(operationSamples).sort()).toEqual([...operationIds].sort());
    const failures: string[] = [];
    await inBatches(operationIds, 6, async (operation) => {
      const sample = operationSamples[operation];
      const out = dir(`every/${operation}`);
      const result = await cli([
        operation,
        ...sample.files,
        ...Object.entries(sample.named ?? {}).flatMap(([field, paths]) => [`--${field}`, ...paths]),
        ...flagsFor(sample.options),
        "-o",
        `${out}/`,
        "--json",
      ]);
      if (result.code !== 0) {
        failures.push(`${operation}: exit ${result.code}: ${result.stderr}`);
        return;
      }
      // One JSON line: the job as the API returns it, plus the paths written.
      const lines = result.stdout.trim().split("\n");
      expect(lines, operation).toHaveLength(1);
      const job = JSON.parse(lines[0] ?? "") as {
        id: string;
        operation: string;
        status: string;
        outputs: { name: string; contentType: string }[];
        files: string[];
      };
      expect(job, operation).toMatchObject({ operation, status: "done" });
      expect(job.outputs.map((output) => output.contentType)).toEqual(
        job.outputs.map(() => sample.outputContentType),
      );
      expect(job.files).toEqual(job.outputs.map((output) => join(out, output.name)));
      expect(readdirSync(out).sort()).toEqual(job.outputs.map((output) => output.name).sort());
      expectOutputs(job.files, sample);
      expectNoProgress(result.stderr);

      // The same job through @octavo/client, which submits every sample by its named method in
      // client-sdk.test.ts: one engine run of each sample serves both clients' checks.
      const read = await sdk.jobs.get(job.id);
      expect({ id: operation, status: read.status, error: read.error }).toEqual({
        id: operation,
        status: "done",
        error: undefined,
      });
      expect(read.operation).toBe(operation);
      expect(read.outputs).toHaveLength(sample.outputs);
      for (const output of read.outputs ?? []) {
        expect(output.name.endsWith(sample.outputExtension), output.name).toBe(true);
        expect(output.contentType).toBe(sample.outputContentType);
        expect(looksLike(await output.bytes(), sample.outputExtension), output.name).toBe(true);
      }
    });
    expect(failures).toEqual([]);
  }, 150_000);

  it("runs a batch one job per file, --parallel at a time, into a directory, same names made distinct", async () => {
    const other = dir("batch-other");
    copyFileSync(sampleA, join(other, "sample-a.pdf"));
    const out = join(scratch.path, "batch-out");
    const startedAt = new Date().toISOString();
    const result = await cli([
      "compress",
      sampleA,
      sampleB,
      join(other, "sample-a.pdf"),
      "--parallel",
      "2",
      "-o",
      `${out}/`,
      "--level",
      "low",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["sample-a-2.pdf", "sample-a.pdf", "sample-b.pdf"]);
    // Text mode: the paths written, one a line; stderr (not a terminal) stays empty.
    expect(result.stdout.trim().split("\n").sort()).toEqual(
      ["sample-a-2.pdf", "sample-a.pdf", "sample-b.pdf"].map((name) => join(out, name)),
    );
    expectNoProgress(result.stderr);
    expectOutputs(
      readdirSync(out).map((name) => join(out, name)),
      { outputExtension: ".pdf", outputs: 3 },
    );
    // Two at a time: the third job was created only once one of the first two had finished.
    const listed = await cli([
      "jobs",
      "list",
      "--operation",
      "compress",
      "--created-after",
      startedAt,
      "--json",
    ]);
    const jobs = (JSON.parse(listed.stdout) as { data: { createdAt: string; finishedAt: string }[] }).data;
    expect(jobs).toHaveLength(3);
    const [first, second, third] = jobs.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const firstEnd = Math.min(Date.parse(first?.finishedAt ?? ""), Date.parse(second?.finishedAt ?? ""));
    expect(Date.parse(third?.createdAt ?? "")).toBeGreaterThanOrEqual(firstEnd);
  });

  it("passes a URL input as a URL: the service downloads it", async () => {
    const target = join(scratch.path, "from-url.pdf");
    const before = site.requests.length;
    const result = await cli(["rotate", `${site.url}/files/remote.pdf`, "--angle", "90", "-o", target]);
    expect(result.code, result.stderr).toBe(0);
    expect(looksLike(readFileSync(target), ".pdf")).toBe(true);
    const fetched = site.requests.slice(before);
    expect(fetched.map((request) => request.url)).toEqual(["/files/remote.pdf"]);
    // The service's fetcher, not the SDK's upload, asked for it.
    expect(fetched[0]?.headers["user-agent"] ?? "").not.toMatch(/octavo-client/);
  });

  it("renders a page given with html-to-pdf's --url, with no input file", async () => {
    const target = join(scratch.path, "page.pdf");
    const result = await cli(["html-to-pdf", "--url", `${site.url}/page.html`, "-o", target]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(target);
    expect(looksLike(readFileSync(target), ".pdf")).toBe(true);
    expect(await pdfText(target)).toContain("Served page");
  });

  it("sends Generate's --data as JSON, or uploads the file of --data @path in the data field", async () => {
    const template = join(scratch.path, "hello.docx");
    writeFileSync(
      template,
      await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph("Hello {name}")] }] })),
    );
    const dataFile = join(scratch.path, "hello.json");
    writeFileSync(dataFile, JSON.stringify([{ name: "from a file" }, { name: "again" }]));
    const fromFile = dir("generate-file");
    const uploaded = await cli([
      "generate",
      template,
      "--data",
      `@${dataFile}`,
      "--file-name",
      "hello-{name}",
      "-o",
      `${fromFile}/`,
    ]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(readdirSync(fromFile).sort()).toEqual(["hello-again.pdf", "hello-from a file.pdf"]);
    expect(await pdfText(join(fromFile, "hello-from a file.pdf"))).toContain("Hello from a file");
    const inline = join(scratch.path, "inline.pdf");
    const sent = await cli(["generate", template, "--data", '{"name":"inline"}', "-o", inline]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(await pdfText(inline)).toContain("Hello inline");
  });

  it("submits with --no-wait, then waits, downloads, lists and deletes through the job commands", async () => {
    const created = await cli([
      "protect",
      sampleA,
      "--options",
      '{"userPassword":"pw-1"}',
      "--no-wait",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const job = JSON.parse(created.stdout) as { id: string; status: string; credits: number };
    expect(job).toMatchObject({ status: "queued", credits: 1 });

    const waited = await cli(["jobs", "wait", job.id, "--json"]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ id: job.id, status: "done", operation: "protect" });

    const out = dir("downloaded");
    const downloaded = await cli(["download", job.id, "-o", out]);
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect(downloaded.stdout.trim()).toBe(join(out, "sample-a.pdf"));
    expect(readFileSync(join(out, "sample-a.pdf")).toString("latin1")).toMatch(/^%PDF-[\s\S]*\/Encrypt/);

    const listed = await cli(["jobs", "list", "--operation", "protect", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { data: { id: string }[] }).data.map((item) => item.id)).toContain(
      job.id,
    );

    const account = await cli(["account", "--json"]);
    expect(account.code, account.stderr).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ plan: "business" });

    expect((await cli(["jobs", "delete", job.id])).code).toBe(0);
    const gone = await cli(["download", job.id, "-o", out]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/expired|deleted/);
  });

  it("never overwrites an input with an output", async () => {
    const work = dir("overwrite");
    const input = join(work, "report.pdf");
    copyFileSync(sampleA, input);
    const before = readFileSync(input);
    // The output would take the input's own name in the directory it is in.
    const result = await cli(["rotate", "report.pdf"], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /report\.pdf.*input file and would be overwritten.*octavo-client download /,
    );
    // -o naming the input is refused before anything is sent.
    const direct = await cli(["rotate", input, "-o", input]);
    expect(direct.code).toBe(2);
    expect(direct.stderr).toMatch(/would be overwritten/);
    expect(readFileSync(input)).toEqual(before);
  });

  it("exits 4 for a wrong key, with the request id", async () => {
    const result = await cli(["account"], { key: "svc_live_not-a-real-key" });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^octavo-client: .*\(request id [^)]+\)\n$/);
  });

  it("exits 3 for an option the API refuses, naming it, with the request id (and a JSON line with --json)", async () => {
    const result = await cli(["compress", sampleA, "--target-kb", "5", "--json"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/targetKB.*\(request id [^)]+\)/);
    const refusal = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(refusal).toMatchObject({ error: "invalid_options", status: 400 });
    expect(String(refusal.detail)).toMatch(/targetKB/);
    expect(String(refusal.requestId)).not.toBe("");
  });

  it("exits 3 for a file over a Free account's 10 MB", async () => {
    const big = join(scratch.path, "big.pdf");
    writeFileSync(big, Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(11 * 1024 * 1024, 0x20)]));
    const result = await cli(["compress", big, "-o", dir("too-large")], { key: free });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/request id/);
    expect(result.stderr.toLowerCase()).toMatch(/too large|too_large|10 mb|mib/);
  });

  it("exits 1 for a job that fails, printing its code and message", async () => {
    const out = dir("failed");
    const result = await cli(["watermark", encrypted, "--text", "x", "-o", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/failed: password_required: \S/);
    expect(readdirSync(out)).toEqual([]);
  });

  it("exits 2 without OCTAVO_API_KEY, and for a flag of the wrong type, sending nothing", async () => {
    const missing = await cli(["compress", sampleA], { key: null });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/OCTAVO_API_KEY/);
    const badFlag = await cli(["compress", sampleA, "--target-kb", "lots"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--target-kb.*Not an integer/);
    const missingFile = await cli(["compress", join(scratch.path, "no-such.pdf")]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/input file not found/);
  });

  it("exits 5 when the service cannot be reached", async () => {
    const port = await freePort();
    const result = await cli(["account"], { baseUrl: `http://127.0.0.1:${port}` });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^octavo-client: /);
  });

  it("draws a progress bar on a terminal", async () => {
    if (!existsSync("/usr/bin/script"))
      throw new Error("script (util-linux) is needed to run under a pseudo-terminal");
    const target = join(scratch.path, "pty.pdf");
    const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
    const command = [
      process.execPath,
      bin,
      "ocr",
      corpusPath("scanned/tesseract_phototest.pdf"),
      "-o",
      target,
    ]
      .map(quote)
      .join(" ");
    const result = await spawnCollecting(
      "script",
      ["-qfec", command, "/dev/null"],
      cliEnv({ OCTAVO_API_KEY: business, OCTAVO_BASE_URL: stack.baseUrl, COLUMNS: "120" }),
    );
    expect(result.code, result.stdout).toBe(0);
    // The bar (cli-progress's shades: █ done, ░ to do), redrawn in place, ends at 100 % with the job
    // done. (The upload and the job's steps between are drawn when a redraw, 10 a second, sees them.)
    expect(result.stdout).toContain("\u001b[1G");
    expect(result.stdout).toMatch(
      /tesseract_phototest\.pdf +[█░]{30} +\d+% (?:starting|uploading|queued|active)/,
    );
    expect(result.stdout).toMatch(/tesseract_phototest\.pdf +█{30} 100% done/);
    expect(result.stdout).toContain(target);
    expect(looksLike(readFileSync(target), ".pdf")).toBe(true);
  });
});
