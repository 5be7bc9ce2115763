import { basename } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { toPdfA, validatePdfA } from "../src/index.js";
import { cleanup, corpus, workDir } from "./helpers.js";

// The MuPDF preparation throwing (a file MuPDF opens but cannot rewrite) is rare; simulate it.
vi.mock("../src/prepare.js", async (original) => ({
  ...(await original<typeof import("../src/prepare.js")>()),
  prepareForGhostscript: vi.fn(async () => {
    throw new Error("simulated rewrite failure");
  }),
}));

describe("when the MuPDF preparation fails", () => {
  it("converts the file as it is and says so in a warning", async () => {
    const input = corpus("general/cabinet_text_only_pdfa1b.pdf");
    const dir = await workDir();
    try {
      const result = await toPdfA({ path: input, name: basename(input) }, { level: "2" }, { workDir: dir });
      const output = result.outputs[0]?.path ?? "";
      expect((await validatePdfA(output, "2")).valid).toBe(true);
      expect(result.warnings.join("\n")).toMatch(
        /could not be prepared for PDF\/A \(MuPDF: simulated rewrite failure\), so it was converted as it is/,
      );
    } finally {
      await cleanup(dir);
    }
  });
});
