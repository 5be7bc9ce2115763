import { describe, expect, it } from "vitest";
import { wordRecall, wordSet } from "../src/index.js";

describe("wordSet", () => {
  it("normalises: NFKC, lower case, edge punctuation trimmed, hyphens and dashes split", () => {
    expect([...wordSet("The ﬁrst “Quote”, well-known (e.g. 3.5%) — done.")]).toEqual([
      "the",
      "first",
      "quote",
      "well",
      "known",
      "e.g",
      "3.5",
      "done",
    ]);
  });

  it("makes each CJK character a word", () => {
    expect([...wordSet("日本語テキスト")]).toEqual(["日", "本", "語", "テ", "キ", "ス", "ト"]);
  });

  it("deletes soft hyphens, drops words of punctuation only", () => {
    expect([...wordSet("co\u00ADoperate -- ***")]).toEqual(["cooperate"]);
  });

  it("treats bidi and control characters as spaces", () => {
    // pdftotext wraps right-to-left runs in U+202B … U+202C.
    expect([...wordSet("\u202B\u202A 47\u202Cقطط\u202C")]).toEqual(["47", "قطط"]);
    expect([...wordSet("a\u0004b \b")]).toEqual(["a", "b"]);
  });
});

describe("wordRecall", () => {
  it("compares sets, credits joined line-end hyphenations and lists the misses", () => {
    const r = wordRecall("An exam-\nple of well-known words, words.", "an example of well known");
    expect(r.sourceWords).toBe(7); // an exam ple of well known words
    expect(r.missing).toEqual(["words"]);
    expect(r.recall).toBeCloseTo(6 / 7);
  });

  it("credits a column-end hyphenation in pdftotext -layout output", () => {
    const r = wordRecall("informa-     other column\ntion", "information other column");
    expect(r.missing).toEqual([]);
  });

  it("is 1 for a reference without words, and for identical texts", () => {
    expect(wordRecall("", "x")).toEqual({ recall: 1, missing: [], sourceWords: 0 });
    expect(wordRecall("a-b", "a-b").recall).toBe(1);
  });
});
