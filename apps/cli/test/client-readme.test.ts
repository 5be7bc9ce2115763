import { execFile } from "node:child_process";
import { copyFile, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { corpusPath, createTempDir, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientPackageDir, runtimes } from "./support/runtimes.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

// The READMEs' examples, run as written against the service, in a folder holding the files they
// name, with OCTAVO_API_KEY and OCTAVO_BASE_URL set as they say. The SDK's: every ts block as a
// program on Node (types stripped), the Deno block on Deno, and the webhook block checked to be the
// example receiver's own code (which example-webhook-receiver.test.ts runs). The command line's: every
// command of its sh blocks, with https://example.com served from loopback.

const repo = join(import.meta.dirname, "..", "..", "..");
const readmePath = join(clientPackageDir, "README.md");
const cliReadmePath = join(repo, "apps", "client-cli", "README.md");
const cliBin = join(repo, "apps", "client-cli", "bin", "octavo-client.mjs");
const receiverPath = join(repo, "examples", "webhook-receiver", "src", "server.mjs");

interface CodeBlock {
  language: string;
  code: string;
}

function codeBlocks(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1] ?? "",
    code: match[2] ?? "",
  }));
}

/** The paths the example downloads to, each of which must exist after it ran. */
function downloads(code: string): string[] {
  return [...code.matchAll(/download\("([^"]+)"\)|writeFile\("([^"]+)"/g)].map(
    (match) => match[1] ?? match[2] ?? "",
  );
}

const execFileAsync = promisify(execFile);

describe("the client READMEs' examples", () => {
  let stack: Stack;
  /** Receives webhooks, and serves what the examples fetch from https://example.com. */
  let site: LocalServer;
  let work: { path: string; dispose(): Promise<void> };
  let env: NodeJS.ProcessEnv;
  const blocks: CodeBlock[] = [];

  beforeAll(async () => {
    blocks.push(...codeBlocks(await readFile(readmePath, "utf8")));
    const pdf = await readFile(join(repo, "examples", "sample-b.pdf"));
    site = await startLocalServer((req, res) => {
      if (req.url === "/report") res.writeHead(200, { "content-type": "text/html" }).end("<h1>Report</h1>");
      else if (req.url?.endsWith(".pdf")) res.writeHead(200, { "content-type": "application/pdf" }).end(pdf);
      else res.writeHead(204).end();
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    work = await createTempDir("octavo-readme-");
    await copyFile(join(repo, "examples", "sample-a.pdf"), join(work.path, "a.pdf"));
    await copyFile(join(repo, "examples", "sample-b.pdf"), join(work.path, "b.pdf"));
    await copyFile(corpusPath("scanned/tesseract_phototest.pdf"), join(work.path, "scan.pdf"));
    await copyFile(corpusPath("office/docling_Strict.docx"), join(work.path, "report.docx"));
    // As after `npm install @octavo/client`.
    await mkdir(join(work.path, "node_modules", "@octavo"), { recursive: true });
    await symlink(clientPackageDir, join(work.path, "node_modules", "@octavo", "client"));
    const { apiKey } = await stack.createAccount("business");
    env = {
      PATH: process.env.PATH,
      OCTAVO_API_KEY: apiKey,
      OCTAVO_BASE_URL: stack.baseUrl,
      WEBHOOK_URL: `${site.url}/webhooks/octavo`,
    };
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
    await work?.dispose();
  });

  async function expectDownloaded(code: string): Promise<void> {
    for (const path of downloads(code)) expect((await stat(join(work.path, path))).size).toBeGreaterThan(0);
  }

  it("has examples of every kind it promises", () => {
    expect(blocks.filter((block) => block.language === "ts").length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((block) => block.language === "js")).toHaveLength(2);
  });

  it("runs every TypeScript example on Node.js", { timeout: 300_000 }, async () => {
    const examples = blocks.filter((block) => block.language === "ts");
    for (const [index, block] of examples.entries()) {
      const file = join(work.path, `example-${index + 1}.mts`);
      await writeFile(file, block.code);
      const result = await execFileAsync(process.execPath, [file], { cwd: work.path, env, timeout: 120_000 });
      expect(result.stdout, block.code).not.toBe("");
      await expectDownloaded(block.code);
    }
    // The example that asked for a webhook got it.
    await waitFor(
      "the webhook",
      () => site.requests.find((request) => request.url === "/webhooks/octavo"),
      60_000,
    );
  });

  it("runs the Deno example on Deno", async () => {
    const block = blocks.find((each) => each.language === "js" && each.code.startsWith("// Deno:"));
    if (!block) throw new Error("no Deno example");
    const file = join(work.path, "deno-example.js");
    await writeFile(file, block.code);
    // As `npm:@octavo/client/web` resolves once published: here, to this package's web entry.
    const map = join(work.path, "import-map.json");
    const web = pathToFileURL(join(clientPackageDir, "dist", "index.js")).href;
    await writeFile(map, JSON.stringify({ imports: { "npm:@octavo/client/web": web } }));
    const flags = block.code.match(/deno run ([^\n]*?) \S+\.js/)?.[1]?.split(" ") ?? [];
    const result = await execFileAsync(
      runtimes.deno,
      ["run", "--no-prompt", ...flags, `--import-map=${map}`, file],
      {
        cwd: work.path,
        env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
        timeout: 90_000,
      },
    );
    expect(result.stdout).toMatch(/compressed to \d+ bytes/);
    await expectDownloaded(block.code);
  });

  it("shows the example receiver's own code for webhooks", async () => {
    const receiver = await readFile(receiverPath, "utf8");
    const block = blocks.find((each) => each.language === "js" && each.code.includes("verifyWebhook"));
    expect(block && receiver.includes(block.code)).toBe(true);
  });

  it("runs every command of the command line's README", { timeout: 300_000 }, async () => {
    // octavo-client on the PATH, as after installing it; `node` is the tests' own.
    const bin = join(work.path, "bin");
    await mkdir(bin, { recursive: true });
    await symlink(cliBin, join(bin, "octavo-client"));
    const path = [bin, dirname(process.execPath), process.env.PATH].join(":");
    const commands = codeBlocks(await readFile(cliReadmePath, "utf8"))
      .filter((block) => block.language === "sh")
      .flatMap((block) => block.code.split("\n"))
      .filter((line) => line.startsWith("octavo-client "));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      const local = command.replaceAll("https://example.com", site.url);
      const result = await execFileAsync("bash", ["-c", local], {
        cwd: work.path,
        env: { ...env, PATH: path },
      }).catch((error: { code: number; stderr: string }) => error);
      expect("code" in result ? `exit ${result.code}: ${result.stderr}` : "exit 0", command).toBe("exit 0");
      const output = local.match(/ -o (\S+)/)?.[1];
      if (output?.endsWith("/")) expect((await readdir(join(work.path, output))).length).toBeGreaterThan(0);
      else if (output) expect((await stat(join(work.path, output))).size).toBeGreaterThan(0);
    }
  });

  it("names every operation's method, as the catalogue does", async () => {
    const { operationCatalogue } = await import("@octavo/client/catalogue");
    const readme = await readFile(readmePath, "utf8");
    for (const operation of operationCatalogue) {
      expect(readme).toContain(`| ${operation.id} | \`client.${operation.method}\` |`);
    }
  });
});
