import { describe, expect, it } from "vitest";
import { numberTokens, rewriteNumbers } from "../src/content-numbers.js";

const bytes = (text: string) => Buffer.from(text, "latin1");
const numbers = (text: string) => [...numberTokens(bytes(text))].map((token) => token.text);

describe("content stream numbers", () => {
  it("finds operands and nothing inside strings, names, comments or inline images", () => {
    const content = [
      "q 0.01 0 0 .01 -5 +7 cm % 99999.5 in a comment",
      "(12 (34) \\) 56) Tj <3132> Tj /F1.5 12 Tf [(a) -250.5 (b)] TJ",
      "<< /MCID 3 >> BDC BI /W 2 /H 1 /BPC 8 ID \x001 2 3EI\xff EI Q",
    ].join("\n");
    expect(numbers(content)).toEqual([
      "0.01",
      "0",
      "0",
      ".01",
      "-5",
      "+7",
      "12",
      "-250.5",
      "3",
      "2",
      "1",
      "8",
    ]);
  });

  it("rewrites only the tokens asked for and keeps every other byte", () => {
    const content = "1 0 0 1 -8388608.0 40000.4 cm (50000.5) Tj";
    const rewritten = rewriteNumbers(bytes(content), (token) =>
      token.text.includes(".") && Math.abs(Number(token.text)) > 32767
        ? String(Math.round(Number(token.text)))
        : undefined,
    );
    expect(Buffer.from(rewritten ?? []).toString("latin1")).toBe("1 0 0 1 -8388608 40000 cm (50000.5) Tj");
    expect(rewriteNumbers(bytes("1 2 re f"), () => undefined)).toBeUndefined();
  });
});
