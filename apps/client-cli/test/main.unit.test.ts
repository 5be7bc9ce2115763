import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { operationCatalogue } from "@octavo/client/catalogue";
import { createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkInputCount, jobGroups } from "../src/commands/operation.js";
import { type CliIo, main } from "../src/main.js";

/** An io whose streams are kept in memory; an address nothing listens on, so no request can succeed. */
function memoryIo(env: Record<string, string>, cwd: string): CliIo & { out(): string; err(): string } {
  const collect = () => {
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  return {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { OCTAVO_BASE_URL: "http://127.0.0.1:9", ...env },
    cwd,
    out: stdout.text,
    err: stderr.text,
  };
}

describe("main, in-process, for what is decided before any request", () => {
  let scratch: { path: string; dispose(): Promise<void> };
  const key = { OCTAVO_API_KEY: "svc_live_unit-test" };
  beforeAll(async () => {
    scratch = await createTempDir("octavo-client-cli-main-");
    writeFileSync(join(scratch.path, "in.pdf"), "%PDF-1.7\n");
  });
  afterAll(async () => {
    await scratch?.dispose();
  });

  async function run(argv: string[], env: Record<string, string> = key) {
    const io = memoryIo(env, scratch.path);
    const code = await main(argv, io);
    return { code, stdout: io.out(), stderr: io.err() };
  }

  it("lists one subcommand per operation of the catalogue, and exits 0 for --help", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    for (const operation of operationCatalogue)
      expect(stdout).toContain(`  ${operation.id} [options] [inputs...]`);
    expect(stdout).toMatch(/account[\s\S]*jobs[\s\S]*download/);
  });

  it("needs OCTAVO_API_KEY, saying so", async () => {
    const { code, stderr } = await run(["compress", "in.pdf"], {});
    expect(code).toBe(2);
    expect(stderr).toMatch(/^octavo-client: OCTAVO_API_KEY is not set/);
  });

  it("exits 2 for a bad flag value, an unknown command, a missing file, bad --options or too few inputs", async () => {
    const cases: [string[], RegExp][] = [
      [["compress", "in.pdf", "--target-kb", "big"], /--target-kb <integer>.*Not an integer/],
      [["compress", "in.pdf", "--level", "max"], /Allowed choices are low, recommended, extreme/],
      [["compress", "in.pdf", "--parallel", "0"], /--parallel.*Not a positive integer/],
      [["shrink", "in.pdf"], /unknown command 'shrink'/],
      [["compress", "missing.pdf"], /input file not found: missing\.pdf/],
      [["compress", "in.pdf", "--options", "{level:"], /--options is not valid JSON/],
      [["merge", "in.pdf"], /merge needs at least 2 inputs; got 1/],
      [["rotate", "in.pdf", "-o", "in.pdf"], /in\.pdf: it is an input file and would be overwritten/],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr, stdout } = await run(argv);
      expect(code, argv.join(" ")).toBe(2);
      expect(stderr, argv.join(" ")).toMatch(message);
      expect(stdout).toBe("");
    }
  });

  it("exits 5 when the service cannot be reached, with a JSON line under --json", async () => {
    const { code, stderr, stdout } = await run(["account", "--json"]);
    expect(code).toBe(5);
    expect(stderr).toMatch(/^octavo-client: /);
    expect(JSON.parse(stdout)).toMatchObject({ error: "connection_error" });
  });
});

describe("jobs of a run", () => {
  const compress = { id: "compress", files: { min: 1, max: 1, extensions: [".pdf"] } } as const;
  const merge = { id: "merge", files: { min: 2, max: 20, extensions: [".pdf"] } } as const;
  const html = { id: "html-to-pdf", files: { min: 0, max: 1, extensions: [".html"] } } as const;

  it("runs a one-file operation once per input, and sends a many-file operation's inputs in one job", () => {
    expect(jobGroups(compress, ["a", "b", "c"])).toEqual([["a"], ["b"], ["c"]]);
    expect(jobGroups(compress, ["a"])).toEqual([["a"]]);
    expect(jobGroups(merge, ["a", "b", "c"])).toEqual([["a", "b", "c"]]);
    // html-to-pdf with --url: one job with no file.
    expect(jobGroups(html, [])).toEqual([[]]);
  });

  it("checks the number of inputs an operation takes", () => {
    expect(() => checkInputCount(merge, 2)).not.toThrow();
    expect(() => checkInputCount(merge, 21)).toThrow("merge takes at most 20 inputs a job; got 21");
    expect(() => checkInputCount(compress, 0)).toThrow("compress needs at least 1 input; got 0");
    expect(() => checkInputCount(compress, 5)).not.toThrow();
    expect(() => checkInputCount(html, 0)).not.toThrow();
  });
});
