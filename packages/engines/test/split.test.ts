import { describe, expect, it } from "vitest";
import { split } from "../src/index.js";
import { context, corpus, failureOf, qpdfPages, textChars } from "./helpers.js";

const eighteen = "general/docling_redp5110_sampled.pdf"; // 18 pages

describe("split", () => {
  it("writes one file per page, named after the input", async () => {
    const progress: number[] = [];
    const input = corpus("general/samplefiles_pdflatex-outline.pdf", "report.pdf");
    const result = await split(input, {}, await context({ onProgress: (f) => progress.push(f) }));
    expect(result.engine).toBe("qpdf");
    expect(result.outputs.map((output) => output.name)).toEqual([
      "report-p1.pdf",
      "report-p2.pdf",
      "report-p3.pdf",
      "report-p4.pdf",
    ]);
    for (const output of result.outputs) expect(await qpdfPages(output.path)).toBe(1);
    expect(progress.at(-1)).toBe(1);
  });

  it("keeps page order in a 117-page split (zero-padded qpdf names)", async () => {
    const result = await split(
      corpus("general/samplefiles_GeoTopo-komprimiert.pdf", "GeoTopo.pdf"),
      {},
      await context(),
    );
    expect(result.outputs).toHaveLength(117);
    expect(result.outputs[99]?.name).toBe("GeoTopo-p100.pdf");
    const whole = await textChars(corpus("general/samplefiles_GeoTopo-komprimiert.pdf").path);
    let parts = 0;
    for (const output of [result.outputs[0], result.outputs[9], result.outputs[99]])
      parts += await textChars(output?.path ?? "");
    expect(parts).toBeGreaterThan(0);
    expect(parts).toBeLessThan(whole);
  });

  it("writes one file per range with the range in its name", async () => {
    const result = await split(corpus(eighteen, "redbook.pdf"), { ranges: "1-3, 5,7-9" }, await context());
    expect(result.outputs.map((output) => output.name)).toEqual([
      "redbook-p1-3.pdf",
      "redbook-p5.pdf",
      "redbook-p7-9.pdf",
    ]);
    const pages = await Promise.all(result.outputs.map((output) => qpdfPages(output.path)));
    expect(pages).toEqual([3, 1, 3]);
  });

  it("refuses a range outside the document, naming it", async () => {
    const failure = await failureOf(split(corpus(eighteen), { ranges: "1-3,17-20" }, await context()));
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toContain("17-20");
    expect(failure.message).toContain("18 pages");
    const single = await failureOf(split(corpus(eighteen), { ranges: "19" }, await context()));
    expect(single.message).toContain("page 19");
  });

  it.each(["3-1", "a", "", "1-2,,4", "0", "1-"])("refuses the malformed range list %j", async (ranges) => {
    const failure = await failureOf(split(corpus(eighteen), { ranges }, await context()));
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toMatch(/not a valid page list/);
  });
});
