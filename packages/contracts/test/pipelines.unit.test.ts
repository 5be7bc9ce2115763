import { describe, expect, expectTypeOf, it } from "vitest";
import {
  catalogue,
  MAX_PIPELINE_STEPS,
  type OperationId,
  type OperationOutput,
  operationIds,
  operationOutputs,
  type PipelineContext,
  type PipelineStep,
  validatePipelineSteps,
} from "../src/index.js";

/** The options an operation cannot do without. */
const requiredOptions: Record<string, Record<string, unknown>> = {
  protect: { userPassword: "s3cret" },
  watermark: { text: "DRAFT" },
};

/** A raw step as a client sends it; protect and watermark get the options they require. */
function step(operation: string, options?: unknown): Record<string, unknown> {
  if (options !== undefined) return { operation, options };
  const required = requiredOptions[operation];
  return required === undefined ? { operation } : { operation, options: required };
}

function chain(...operations: string[]): Record<string, unknown>[] {
  return operations.map((operation) => step(operation));
}

function detailOf(raw: unknown, context?: PipelineContext): string {
  const result = validatePipelineSteps(raw, context);
  if (result.ok) throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
  return result.detail;
}

function accepted(raw: unknown, context?: PipelineContext): { steps: PipelineStep[]; credits: number } {
  const result = validatePipelineSteps(raw, context);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(raw)} to be accepted: ${result.detail}`);
  return { steps: result.steps, credits: result.credits };
}

/** The catalogue's ids as the details list them (operations.unit.test.ts checks the list itself). */
const allIds = operationIds.join(", ");

describe("operationOutputs", () => {
  it.each([
    ["merge", ".pdf", "one"],
    ["split", ".pdf", "several"],
    ["rotate", ".pdf", "per-input"],
    ["compress", ".pdf", "per-input"],
    ["repair", ".pdf", "per-input"],
    ["ocr", ".pdf", "per-input"],
    ["word-to-pdf", ".pdf", "per-input"],
    ["powerpoint-to-pdf", ".pdf", "per-input"],
    ["excel-to-pdf", ".pdf", "per-input"],
    ["html-to-pdf", ".pdf", "one"],
    ["pdf-to-word", ".docx", "per-input"],
    ["pdf-to-powerpoint", ".pptx", "per-input"],
    ["pdf-to-excel", ".xlsx", "per-input"],
    ["pdf-to-pdfa", ".pdf", "per-input"],
    ["protect", ".pdf", "per-input"],
    ["unlock", ".pdf", "per-input"],
  ] as const)("%s yields %s, %s", (id, extension, count) => {
    expect(operationOutputs[id]).toEqual({ extension, count });
  });

  it("has a row for every operation and no other", () => {
    expect(Object.keys(operationOutputs).sort()).toEqual([...operationIds].sort());
  });

  it("is each catalogue entry's output", () => {
    for (const id of operationIds) expect(operationOutputs[id]).toBe(catalogue[id].output);
  });

  it("does not compile without a row for each operation", () => {
    const { unlock: _unlock, ...withoutUnlock } = operationOutputs;
    // @ts-expect-error: a table without "unlock" is not a Record<OperationId, OperationOutput>
    const incomplete: Record<OperationId, OperationOutput> = withoutUnlock;
    expect(Object.keys(incomplete)).not.toContain("unlock");
    expectTypeOf<keyof typeof operationOutputs>().toEqualTypeOf<OperationId>();
  });
});

describe("the image operations in a chain", () => {
  it("names the image extension pdf-to-image yields, which its format decides", () => {
    expect(detailOf([step("pdf-to-image"), step("compress")])).toBe(
      "steps[1]: compress takes .pdf files, and steps[0] (pdf-to-image) yields .png",
    );
    expect(detailOf([step("pdf-to-image", { format: "jpeg" }), step("rotate")])).toBe(
      "steps[1]: rotate takes .pdf files, and steps[0] (pdf-to-image) yields .jpg",
    );
  });

  it("refuses image-to-pdf after pdf-to-image, whose number of pages is not known", () => {
    expect(detailOf([step("pdf-to-image", { format: "webp" }), step("image-to-pdf")])).toBe(
      "steps[1]: image-to-pdf needs 1 to 50 files and steps[0] (pdf-to-image) yields an unknown number of files",
    );
  });

  it("validates the options of the new operations inside a step", () => {
    expect(detailOf([step("watermark", {})])).toBe("steps[0].options.text: is required");
    expect(detailOf([step("page-numbers", { format: "Page" })])).toBe(
      'steps[0].options.format: must be a string of 1 to 50 characters containing {n} where the number goes, e.g. "Page {n} of {total}"',
    );
  });
});

describe("valid chains", () => {
  it.each([
    [["ocr", "compress", "protect"], 6],
    [["word-to-pdf", "pdf-to-pdfa"], 4],
    [["repair", "split"], 2],
    [["merge", "rotate", "compress"], 4],
    [["split", "compress"], 3],
    [["protect", "unlock"], 2],
    [["protect", "unlock", "compress"], 4],
    [["compress"], 2],
    [["repair", "ocr", "rotate", "compress", "protect"], 8],
    [["pdf-to-word", "word-to-pdf", "merge"], 5],
    [["image-to-pdf", "watermark", "page-numbers", "metadata", "flatten"], 6],
    [["repair", "watermark", "pdf-to-image"], 4],
    [["flatten", "protect"], 2],
  ])("%j costs %i credits", (operations, credits) => {
    const result = accepted(chain(...operations), { inputCount: 3 });
    expect(result.credits).toBe(credits);
    expect(result.steps.map((accepted) => accepted.operation)).toEqual(operations);
  });

  it("accepts html-to-pdf with a URL first, and counts its credits", () => {
    const result = accepted([step("html-to-pdf", { url: "https://example.com/" }), step("protect")], {
      inputCount: 0,
    });
    expect(result.credits).toBe(3);
    expect(result.steps.map((accepted) => accepted.operation)).toEqual(["html-to-pdf", "protect"]);
  });

  it("accepts chains of one-file steps without knowing the number of input files", () => {
    expect(accepted(chain("ocr", "compress", "protect")).credits).toBe(6);
    expect(accepted(chain("split", "rotate", "pdf-to-pdfa")).credits).toBe(4);
    expect(accepted(chain("merge", "rotate")).credits).toBe(2);
  });

  it(`accepts ${MAX_PIPELINE_STEPS} steps`, () => {
    expect(MAX_PIPELINE_STEPS).toBe(5);
    expect(accepted(chain("rotate", "rotate", "rotate", "rotate", "rotate")).steps).toHaveLength(5);
  });

  it("applies each step's defaults and keeps the values given", () => {
    const result = accepted([
      step("ocr"),
      step("compress", { level: "extreme" }),
      step("pdf-to-pdfa", { level: 3 }),
      step("protect"),
    ]);
    expect(result.steps).toEqual([
      { operation: "ocr", options: { languages: ["eng"], deskew: true, force: false } },
      { operation: "compress", options: { level: "extreme", grayscale: false } },
      { operation: "pdf-to-pdfa", options: { level: "3" } },
      {
        operation: "protect",
        options: { userPassword: "s3cret", allowPrinting: true, allowCopying: false, allowEditing: false },
      },
    ]);
  });

  it("treats a missing options object as {}", () => {
    expect(accepted([{ operation: "rotate" }]).steps).toEqual([
      { operation: "rotate", options: { angle: 90 } },
    ]);
  });

  it("leaves the caller's steps as they were", () => {
    const raw = [{ operation: "rotate", options: { pages: "1-2" } }];
    const result = accepted(raw);
    expect(raw).toEqual([{ operation: "rotate", options: { pages: "1-2" } }]);
    expect(result.steps[0]?.options).toEqual({ angle: 90, pages: "1-2" });
  });
});

describe("the steps array", () => {
  it("refuses no steps", () => {
    expect(detailOf([])).toBe("steps: must be an array of 1 to 5 steps; it is empty");
  });

  it("refuses more than 5 steps", () => {
    expect(detailOf(chain("rotate", "rotate", "rotate", "rotate", "rotate", "rotate"))).toBe(
      "steps: must be an array of 1 to 5 steps; it has 6",
    );
  });

  it.each([[undefined], [null], ["compress"], [{ operation: "compress" }], [3]])("refuses %j", (raw) => {
    expect(detailOf(raw)).toBe("steps: must be an array of 1 to 5 steps");
  });
});

describe("a step's fields", () => {
  it.each([[null], ["compress"], [["compress"]], [42], [new Date(0)]])("refuses %j as a step", (raw) => {
    expect(detailOf([step("compress"), raw])).toBe(
      'steps[1]: must be a JSON object such as {"operation": "compress", "options": {}}',
    );
  });

  it("names a field that is not operation or options", () => {
    expect(detailOf([{ operation: "compress", level: "low" }])).toBe(
      "steps[0].level: is not a step field; a step has only operation and options",
    );
    expect(detailOf([step("rotate"), { operation: "compress", options: {}, id: 1 }])).toBe(
      "steps[1].id: is not a step field; a step has only operation and options",
    );
  });

  it("requires the operation and lists the ids", () => {
    expect(detailOf([{ options: {} }])).toBe(`steps[0].operation: is required, one of ${allIds}`);
  });

  it("refuses an operation that is not a string", () => {
    expect(detailOf([step("rotate"), { operation: 3 }])).toBe(
      `steps[1].operation: must be a string, one of ${allIds}`,
    );
    expect(detailOf([{ operation: null }])).toBe(`steps[0].operation: must be a string, one of ${allIds}`);
  });

  it.each([
    ["/v1/merge", "merge"],
    ["convert/word-to-pdf", "word-to-pdf"],
    ["/v1/convert/pdf-to-pdfa/", "pdf-to-pdfa"],
    ["/v1/sharpen", undefined],
    ["Compress", "compress"],
  ])("points from %j to the operation id", (operation, meant) => {
    const expected =
      meant === undefined
        ? `steps[0].operation: ${JSON.stringify(operation)} is not an operation id; use one of ${allIds}`
        : `steps[0].operation: ${JSON.stringify(operation)} is not an operation id; use "${meant}"`;
    expect(detailOf([{ operation }])).toBe(expected);
  });

  it("lists the ids for an unknown operation, and cuts a long one short", () => {
    expect(detailOf([step("rotate"), step("sharpen")])).toBe(
      `steps[1].operation: "sharpen" is not an operation id; use one of ${allIds}`,
    );
    expect(detailOf([step("x".repeat(1000))])).toBe(
      `steps[0].operation: "${"x".repeat(40)}…" is not an operation id; use one of ${allIds}`,
    );
  });
});

describe("a step's options", () => {
  it.each([
    [
      [step("compress", { level: "max" })],
      "steps[0].options.level: must be one of low, recommended, extreme",
    ],
    [[step("ocr"), step("compress"), step("protect", {})], "steps[2].options.userPassword: is required"],
    [[step("rotate", { angle: 45 })], "steps[0].options.angle: must be one of 90, 180, 270"],
    [
      [step("split"), step("rotate", { colour: "red" })],
      "steps[1].options.colour: is not an option of rotate (allowed: angle, pages)",
    ],
    [[step("merge", { quality: 1 })], "steps[0].options.quality: is not an option; merge takes no options"],
    [[step("split", { ranges: "5-3" })], 'steps[0].options.ranges: "5-3" goes backwards; write it as 3-5'],
    [[step("compress", null)], "steps[0].options: must be a JSON object"],
    [[step("rotate"), step("compress", [])], "steps[1].options: must be a JSON object"],
  ])("%j → %s", (raw, expected) => {
    expect(detailOf(raw)).toBe(expected);
  });
});

describe("each step reads what the one before yields", () => {
  it("refuses merge after split, whose number of files is unknown", () => {
    const expected =
      "steps[1]: merge needs 2 to 20 files and steps[0] (split) yields an unknown number of files";
    expect(detailOf(chain("split", "merge"))).toBe(expected);
    expect(detailOf(chain("split", "merge"), { inputCount: 1 })).toBe(expected);
  });

  it("refuses merge after a step that yields one file", () => {
    expect(detailOf(chain("rotate", "merge"), { inputCount: 1 })).toBe(
      "steps[1]: merge needs 2 to 20 files and steps[0] (rotate) yields one",
    );
    expect(detailOf(chain("merge", "merge"), { inputCount: 5 })).toBe(
      "steps[1]: merge needs 2 to 20 files and steps[0] (merge) yields one",
    );
    expect(detailOf([step("html-to-pdf", { url: "https://example.com/" }), step("merge")])).toBe(
      "steps[1]: merge needs 2 to 20 files and steps[0] (html-to-pdf) yields one",
    );
  });

  it("carries the number of input files through steps that yield one file per input", () => {
    expect(accepted(chain("rotate", "merge"), { inputCount: 3 }).credits).toBe(2);
    expect(accepted(chain("repair", "ocr", "merge"), { inputCount: 20 }).credits).toBe(5);
    expect(detailOf(chain("repair", "ocr", "merge"), { inputCount: 21 })).toBe(
      "steps[2]: merge needs 2 to 20 files and steps[1] (ocr) yields 21",
    );
    expect(detailOf(chain("rotate", "merge"), { inputCount: 0 })).toBe(
      "steps[1]: merge needs 2 to 20 files and steps[0] (rotate) yields none",
    );
  });

  it("says why a count is unknown when it was passed on", () => {
    expect(detailOf(chain("rotate", "merge"))).toBe(
      "steps[1]: merge needs 2 to 20 files and steps[0] (rotate) yields an unknown number: one per file it " +
        "receives, and the number of input files is not known",
    );
    expect(detailOf(chain("split", "rotate", "merge"), { inputCount: 1 })).toBe(
      "steps[2]: merge needs 2 to 20 files and steps[1] (rotate) yields an unknown number: one per file it " +
        "receives, and steps[0] (split) yields an unknown number of files",
    );
  });

  it("counts the files of office conversions, which take at most 10", () => {
    expect(accepted(chain("pdf-to-word", "word-to-pdf"), { inputCount: 10 }).credits).toBe(4);
    expect(accepted(chain("pdf-to-powerpoint", "powerpoint-to-pdf"), { inputCount: 1 }).credits).toBe(4);
    expect(accepted(chain("pdf-to-excel", "excel-to-pdf"), { inputCount: 2 }).credits).toBe(4);
    expect(detailOf(chain("pdf-to-word", "word-to-pdf"), { inputCount: 11 })).toBe(
      "steps[1]: word-to-pdf needs 1 to 10 files and steps[0] (pdf-to-word) yields 11",
    );
    expect(detailOf(chain("pdf-to-word", "word-to-pdf"))).toBe(
      "steps[1]: word-to-pdf needs 1 to 10 files and steps[0] (pdf-to-word) yields an unknown number: one " +
        "per file it receives, and the number of input files is not known",
    );
  });

  it("refuses a step that does not read the previous step's file type", () => {
    expect(detailOf(chain("compress", "word-to-pdf"))).toBe(
      "steps[1]: word-to-pdf takes .doc, .docx, .odt, .rtf or .txt files, and steps[0] (compress) yields .pdf",
    );
    expect(detailOf(chain("ocr", "pdf-to-excel", "compress"))).toBe(
      "steps[2]: compress takes .pdf files, and steps[1] (pdf-to-excel) yields .xlsx",
    );
    expect(detailOf(chain("pdf-to-powerpoint", "word-to-pdf"), { inputCount: 1 })).toBe(
      "steps[1]: word-to-pdf takes .doc, .docx, .odt, .rtf or .txt files, and steps[0] (pdf-to-powerpoint) " +
        "yields .pptx",
    );
    expect(detailOf(chain("pdf-to-word", "merge"), { inputCount: 2 })).toBe(
      "steps[1]: merge takes .pdf files, and steps[0] (pdf-to-word) yields .docx",
    );
  });

  it("allows html-to-pdf only as the first step", () => {
    const expected =
      "steps[1]: html-to-pdf can only be the first step: it renders the page or URL of the request, not " +
      "another step's output";
    expect(detailOf([step("compress"), step("html-to-pdf", { url: "https://example.com/" })])).toBe(expected);
    expect(detailOf([step("html-to-pdf"), step("html-to-pdf")])).toBe(expected);
  });

  it("refuses a step that needs a file in an upload field of its own", () => {
    expect(detailOf([step("compress"), step("sign", { certificatePassword: "x" })])).toBe(
      "steps[1]: sign needs a file in its own upload field (certificate), which a pipeline does not take; " +
        "run it as a job of its own on the pipeline's output (POST /v1/sign)",
    );
    // An optional one is no obstacle: verify-signatures runs with Debian's roots alone.
    expect(accepted([step("compress"), step("verify-signatures")], { inputCount: 1 }).credits).toBe(3);
  });

  it("allows only unlock after protect", () => {
    expect(detailOf(chain("protect", "compress"))).toBe(
      "steps[1]: compress cannot read the encrypted output of protect (steps[0]); put protect last",
    );
    expect(detailOf(chain("ocr", "protect", "protect"))).toBe(
      "steps[2]: protect cannot read the encrypted output of protect (steps[1]); put protect last",
    );
    expect(detailOf(chain("protect", "merge"), { inputCount: 3 })).toBe(
      "steps[1]: merge cannot read the encrypted output of protect (steps[0]); put protect last",
    );
    expect(accepted(chain("protect", "unlock")).steps.map((accepted) => accepted.operation)).toEqual([
      "protect",
      "unlock",
    ]);
  });

  it("reports the first problem in step order", () => {
    expect(detailOf([step("split"), step("merge"), step("compress", { level: "max" })])).toBe(
      "steps[1]: merge needs 2 to 20 files and steps[0] (split) yields an unknown number of files",
    );
    expect(detailOf([step("split", { ranges: "0" }), step("merge")])).toBe(
      'steps[0].options.ranges: "0" names page 0; pages start at 1',
    );
  });
});

describe("inputCount", () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    "throws for %d, a caller's mistake",
    (inputCount) => {
      expect(() => validatePipelineSteps(chain("compress"), { inputCount })).toThrow(RangeError);
    },
  );

  it("may be left out or undefined", () => {
    expect(accepted(chain("compress"), { inputCount: undefined }).credits).toBe(2);
    expect(accepted(chain("compress"), {}).credits).toBe(2);
  });
});
