import { describe, expect, it } from "vitest";
import { nestedDeeperThan } from "../src/json-depth.js";

describe("nestedDeeperThan", () => {
  it("counts each object and array as a level, and scalars as none", () => {
    expect(nestedDeeperThan(1, 0)).toBe(false);
    expect(nestedDeeperThan(null, 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan([{ a: [1] }], 3)).toBe(false);
    expect(nestedDeeperThan([{ a: [1] }], 2)).toBe(true);
  });

  it("finds the deep branch among shallow ones", () => {
    const value = { a: 1, b: [2, 3], c: { d: { e: [[]] } } };
    expect(nestedDeeperThan(value, 5)).toBe(false);
    expect(nestedDeeperThan(value, 4)).toBe(true);
  });

  it("measures 100,000 levels, which recursion could not", () => {
    const text = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    const value: unknown = JSON.parse(text);
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(nestedDeeperThan(value, 32)).toBe(true);
    expect(nestedDeeperThan(value, 100_000)).toBe(false);
  });
});
