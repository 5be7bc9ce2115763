import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { operationCatalogue } from "../src/catalogue.js";
import { Octavo } from "../src/index.js";

// The SDK's types and catalogue are generated from the OpenAPI document: committed, and checked here
// against the contract of this source tree (apps/cli's client-sdk test checks them against the served
// document). The reference documentation is built from the doc comments, with every export documented.

const root = join(import.meta.dirname, "..");
const run = promisify(execFile);

describe("what is generated from the contract", () => {
  it("is up to date with @octavo/contracts", async () => {
    const { stderr } = await run(process.execPath, [join(root, "scripts", "generate.mjs"), "--check"]);
    expect(stderr).toBe("");
  });

  it("gives every operation of the catalogue a method on the client", () => {
    const client = new Octavo({ apiKey: "svc_live_test" });
    const methods = operationCatalogue.map((operation) => {
      const [group, name] = operation.method.split(".");
      const owner: object = name === undefined ? client : client.convert;
      return typeof (owner as Record<string, unknown>)[name ?? group ?? ""];
    });
    expect(methods.every((kind) => kind === "function")).toBe(true);
    expect(operationCatalogue.map((operation) => operation.id)).toContain("pdf-to-image");
  });
});

describe("the reference documentation", () => {
  it("builds with TypeDoc without a warning (every export documented, every link valid)", {
    timeout: 60_000,
  }, async () => {
    const typedoc = join(root, "node_modules", ".bin", "typedoc");
    const result = await run(typedoc, ["--emit", "none"], { cwd: root }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe("");
  });
});

describe("the options' types", () => {
  it("refuse what the API would refuse, at compile time", () => {
    const client = new Octavo({ apiKey: "svc_live_test" });
    // Each line fails to compile if its @ts-expect-error is not needed: this file is type-checked.
    const refused = () => [
      // @ts-expect-error angle is 90, 180 or 270
      client.rotate("a.pdf", { angle: 45 }),
      // @ts-expect-error an option merge does not have
      client.merge(["a.pdf", "b.pdf"], { level: "low" }),
      // @ts-expect-error an OCR language code the API does not know
      client.ocr("scan.pdf", { languages: ["klingon"] }),
      // @ts-expect-error protect needs userPassword
      client.protect("a.pdf", {}),
      // @ts-expect-error a pipeline step of an unknown operation
      client.pipeline("a.pdf", [{ operation: "shred" }]),
    ];
    expect(typeof refused).toBe("function");
  });
});
