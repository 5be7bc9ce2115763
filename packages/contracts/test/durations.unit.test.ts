import { describe, expect, it } from "vitest";
import { durationInWords } from "../src/index.js";

describe("durationInWords", () => {
  it("says durations as a person would, singular and plural right", () => {
    expect(durationInWords(1)).toBe("1 second");
    expect(durationInWords(3)).toBe("3 seconds");
    expect(durationInWords(0.5)).toBe("0.5 seconds");
    expect(durationInWords(60)).toBe("1 minute");
    expect(durationInWords(90)).toBe("90 seconds");
    expect(durationInWords(150)).toBe("2.5 minutes");
    expect(durationInWords(300)).toBe("5 minutes");
    expect(durationInWords(3600)).toBe("1 hour");
    expect(durationInWords(5400)).toBe("90 minutes");
    expect(durationInWords(86_400)).toBe("24 hours");
  });
});
