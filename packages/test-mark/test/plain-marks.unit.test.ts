import { describe, expect, it } from "vitest";
import { withStamp } from "../src/excel.js";
import { markJson, markMarkdown, markText } from "../src/plain.js";

describe("the test-mode stamp in text, Markdown, JSON and a sheet's header codes", () => {
  it("puts a first line before text and Markdown", () => {
    expect(markText("Hello\n")).toBe("octavo test mode\n\nHello\n");
    expect(markMarkdown("# Title\n")).toBe("> octavo test mode\n\n# Title\n");
  });

  it('makes "livemode": false the first member of a JSON object, keeping its layout', () => {
    expect(markJson('{\n  "name": "a.pdf",\n  "pages": 2\n}\n', "a.json")).toBe(
      '{\n  "livemode": false,\n  "name": "a.pdf",\n  "pages": 2\n}\n',
    );
    expect(markJson('{"livemode":true,"a":1}', "a.json")).toBe('{"livemode":false,"a":1}');
    expect(() => markJson("[1, 2]", "list.json")).toThrow("list.json is not a JSON object");
  });

  it("puts the stamp first in a header's left section, keeping what the header said", () => {
    expect(withStamp("")).toBe("&Loctavo test mode");
    // Text before any section code is the centre section's: it stays there.
    expect(withStamp("Budget")).toBe("&Loctavo test mode&CBudget");
    expect(withStamp("&CBudget&RPage &P")).toBe("&Loctavo test mode&CBudget&RPage &P");
    expect(withStamp("&LDraft&CBudget")).toBe("&Loctavo test mode  Draft&CBudget");
    // "&&L" is a literal "&L", and a font name may hold an L: neither is a section. The font code before
    // the first section is the centre section's, so it follows an explicit &C.
    expect(withStamp('&"Lucida,Bold"&CR&&L')).toBe('&Loctavo test mode&C&"Lucida,Bold"&CR&&L');
  });
});
