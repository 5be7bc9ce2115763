import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertNotAnInput,
  chooseTarget,
  displayPath,
  NameAllocator,
  outputPath,
  safeFileName,
} from "../src/output-plan.js";
import { UsageError } from "../src/usage-error.js";

describe("where outputs go", () => {
  let scratch: { path: string; dispose(): Promise<void> };
  beforeAll(async () => {
    scratch = await createTempDir("octavo-client-cli-unit-");
    mkdirSync(join(scratch.path, "existing"));
  });
  afterAll(async () => {
    await scratch?.dispose();
  });

  it("writes to the current directory without -o", () => {
    expect(chooseTarget(undefined, scratch.path, 1)).toEqual({ kind: "directory", path: scratch.path });
  });

  it("takes -o as a file only for one output and a path that is not a directory", () => {
    const cwd = scratch.path;
    expect(chooseTarget("out.pdf", cwd, 1)).toEqual({ kind: "file", path: join(cwd, "out.pdf") });
    expect(chooseTarget("out.pdf", cwd, 2)).toEqual({ kind: "directory", path: join(cwd, "out.pdf") });
    expect(chooseTarget("out/", cwd, 1)).toEqual({ kind: "directory", path: join(cwd, "out") });
    expect(chooseTarget("existing", cwd, 1)).toEqual({ kind: "directory", path: join(cwd, "existing") });
    expect(chooseTarget("/abs/x.pdf", cwd, Number.POSITIVE_INFINITY).kind).toBe("directory");
  });

  it("gives outputs of the same name distinct names", () => {
    const names = new NameAllocator();
    expect(
      ["a.pdf", "a.pdf", "b.pdf", "a.pdf", "a-2.pdf", "README"].map((name) => names.allocate(name)),
    ).toEqual(["a.pdf", "a-2.pdf", "b.pdf", "a-3.pdf", "a-2-2.pdf", "README"]);
    const directory = { kind: "directory", path: "/out" } as const;
    expect(outputPath(directory, "x.pdf", names)).toBe("/out/x.pdf");
    expect(outputPath(directory, "x.pdf", names)).toBe("/out/x-2.pdf");
    expect(outputPath({ kind: "file", path: "/out/mine.pdf" }, "x.pdf", names)).toBe("/out/mine.pdf");
  });

  it("keeps an output's name inside the output directory", () => {
    expect(safeFileName("../../etc/passwd")).toBe("passwd");
    expect(safeFileName("..\\evil.pdf")).toBe("evil.pdf");
    expect(safeFileName("..")).toBe("output");
    expect(safeFileName("")).toBe("output");
  });

  it("refuses to write over an input, also through a symbolic link", () => {
    const input = join(scratch.path, "input.pdf");
    writeFileSync(input, "%PDF-1.7\n");
    symlinkSync(input, join(scratch.path, "link.pdf"));
    expect(() => assertNotAnInput(input, [input])).toThrow(UsageError);
    expect(() => assertNotAnInput(join(scratch.path, "link.pdf"), [input], "job-1")).toThrow(
      /would be overwritten.*octavo-client download job-1/,
    );
    expect(() => assertNotAnInput(join(scratch.path, "other.pdf"), [input])).not.toThrow();
  });

  it("shows paths under the working directory relative to it", () => {
    expect(displayPath("/work/out/a.pdf", "/work")).toBe("out/a.pdf");
    expect(displayPath("/elsewhere/a.pdf", "/work")).toBe("/elsewhere/a.pdf");
  });
});
