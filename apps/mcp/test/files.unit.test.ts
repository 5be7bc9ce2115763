import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileInput, resolveRoots } from "../src/files.js";
import { ToolFailure } from "../src/results.js";

describe("the files a tool may read", () => {
  let scratch: { path: string; dispose(): Promise<void> };
  let roots: string[];

  beforeAll(async () => {
    scratch = await createTempDir("octavo-mcp-files-");
    await mkdir(join(scratch.path, "root"));
    await writeFile(join(scratch.path, "root", "in.pdf"), "%PDF-1.4");
    await writeFile(join(scratch.path, "outside.pdf"), "%PDF-1.4");
    await symlink(join(scratch.path, "outside.pdf"), join(scratch.path, "root", "link.pdf"));
    roots = await resolveRoots([join(scratch.path, "root")]);
  });
  afterAll(async () => {
    await scratch?.dispose();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof ToolFailure ? error.error : String(error)),
    );

  it("reads a file under a root, and passes a URL on for the service to fetch", async () => {
    expect(await fileInput(join(scratch.path, "root", "in.pdf"), roots)).toEqual({
      path: join(roots[0] ?? "", "in.pdf"),
    });
    expect(await fileInput("https://example.com/a.pdf", roots)).toEqual({ url: "https://example.com/a.pdf" });
  });

  it("refuses a path outside the roots, through a link or ..", async () => {
    expect(await refusal(fileInput(join(scratch.path, "outside.pdf"), roots))).toBe("path_outside_root");
    expect(await refusal(fileInput(join(scratch.path, "root", "link.pdf"), roots))).toBe("path_outside_root");
    expect(await refusal(fileInput(join(scratch.path, "root", "..", "outside.pdf"), roots))).toBe(
      "path_outside_root",
    );
    expect(await refusal(fileInput(join(scratch.path, "root", "missing.pdf"), roots))).toBe(
      "input_not_found",
    );
  });

  it("reads no local file without a root, or over HTTP", async () => {
    expect(await refusal(fileInput(join(scratch.path, "root", "in.pdf"), []))).toBe("path_not_allowed");
    expect(await refusal(fileInput(join(scratch.path, "root", "in.pdf"), undefined))).toBe(
      "path_not_allowed",
    );
    // A named upload (a signing key) is a file, never a URL.
    expect(await refusal(fileInput("https://example.com/key.p12", undefined, "certificate"))).toBe(
      "path_not_allowed",
    );
  });
});
