import { describe, expect, it } from "vitest";
import { operators } from "../src/content-stream.js";
import { withoutQuotes } from "../src/quote-operators.js";

const spelled = (content: string): string | undefined => {
  const out = withoutQuotes(Buffer.from(content, "latin1"));
  return out === undefined ? undefined : Buffer.from(out).toString("latin1");
};
const squeezed = (text: string | undefined) => text?.replace(/\s+/g, " ").trim();

describe("operators", () => {
  it("reads operands whole: strings with escapes and parentheses, hex, names, arrays and dictionaries", () => {
    const source =
      "/F1 11 Tf (a \\) (b) c) Tj <4142> Tj [(x) -20 (y)] TJ /Span <</ActualText (q) /K [1 2]>> BDC";
    const read = [...operators(source)].map(({ name, operands }) => [
      name,
      operands.map((span) => source.slice(span.start, span.end)),
    ]);
    expect(read).toEqual([
      ["Tf", ["/F1", "11"]],
      ["Tj", ["(a \\) (b) c)"]],
      ["Tj", ["<4142>"]],
      ["TJ", ["[(x) -20 (y)]"]],
      ["BDC", ["/Span", "<</ActualText (q) /K [1 2]>>"]],
    ]);
  });

  it("passes over comments and an inline image's binary data, operators and quotes in it included", () => {
    const source = "q % a (comment) '\nBI /W 2 /H 1 /BPC 8 /CS /G ID \0' T*\xff EI Q (t) '";
    expect([...operators(source)].map((operator) => operator.name)).toEqual(["q", "BI", "Q", "'"]);
  });

  it("reads an unfiltered inline image by its length, so EI inside its data does not end it", () => {
    const source =
      "q BI /W 10 /H 2 /BPC 8 /CS /G ID abc EI abcdefghijklm EI Q BI /W 4 /H 1 /F /AHx ID 0a0b> EI";
    const read = [...operators(source)];
    expect(read.map((operator) => operator.name)).toEqual(["q", "BI", "Q", "BI"]);
    const span = (operator: (typeof read)[number]) => {
      const data = operator.image?.data ?? { start: 0, end: 0 };
      return source.slice(data.start, data.end);
    };
    expect(span(read[1] as (typeof read)[number])).toBe("abc EI abcdefghijklm");
    expect(span(read[3] as (typeof read)[number])).toBe("0a0b>");
  });
});

describe("withoutQuotes", () => {
  it("spells ' and \" out as the T*, Tw and Tc they stand for, and leaves every other byte", () => {
    const source = "BT 25 TL (a1) ' (a2)' 50 50 Td (b\\)1)Tj 2 0.5 <6263> \" ET";
    expect(squeezed(spelled(source))).toBe(
      "BT 25 TL T* (a1) Tj T* (a2) Tj 50 50 Td (b\\)1)Tj 2 Tw 0.5 Tc T* <6263> Tj ET",
    );
  });

  it("returns nothing for content without quote operators, and leaves a malformed quote as it is", () => {
    expect(spelled('BT (it\'s) Tj T* ("quoted") Tj ET')).toBeUndefined();
    expect(squeezed(spelled("BT 1 2 3 (x) ' (y) ' ET"))).toBe("BT 1 2 3 (x) ' T* (y) Tj ET");
  });
});
