import { describe, expect, it } from "vitest";
import { type CellValue, parseCellText } from "../src/excel/numbers.js";

function number(text: string): { value: number; numFmt: string | undefined } {
  const parsed: CellValue = parseCellText(text);
  if (parsed.kind !== "number") throw new Error(`"${text}" was read as ${parsed.kind}`);
  return { value: parsed.value, numFmt: parsed.numFmt };
}

describe("parseCellText: numbers", () => {
  it.each([
    ["42", 42],
    ["-17", -17],
    ["3.25", 3.25],
    ["0.5", 0.5],
    ["1,234", 1234],
    ["1,234.5", 1234.5],
    ["1,234,567.89", 1234567.89],
    ["1.234,5", 1234.5],
    ["1.234.567", 1234567],
    ["1.234.567,25", 1234567.25],
    ["12,75", 12.75],
    ["1,2345", 1.2345],
    ["1 234", 1234],
    ["1\u00a0234,56", 1234.56],
    ["1\u202f234 567", 1234567],
    ["1'234.50", 1234.5],
    ["12,34,567", 1234567],
    ["(1,234)", -1234],
    ["(12.5)", -12.5],
    ["\u22125", -5],
    ["1.5E+3", 1500],
  ])("reads %s as %d", (text, value) => {
    expect(number(text).value).toBeCloseTo(value, 10);
  });

  it("reads percentages as fractions with a percent format", () => {
    expect(number("12.5%")).toEqual({ value: 0.125, numFmt: "0.0%" });
    expect(number("100%")).toEqual({ value: 1, numFmt: "0%" });
    expect(number("-3,5 %").value).toBeCloseTo(-0.035, 10);
  });

  it("strips currency symbols and keeps them in the number format", () => {
    expect(number("$1,234.50")).toEqual({ value: 1234.5, numFmt: '"$"#,##0.00' });
    expect(number("1.234,50 €")).toEqual({ value: 1234.5, numFmt: '#,##0.00 "€"' });
    expect(number("-£20")).toEqual({ value: -20, numFmt: '"£"0' });
    expect(number("($5.00)").value).toBe(-5);
  });

  it("keeps the PDF's grouping and decimals in the format", () => {
    expect(number("1,234").numFmt).toBe("#,##0");
    expect(number("12.50").numFmt).toBe("0.00");
    expect(number("7").numFmt).toBeUndefined();
    expect(number("(1,234)").numFmt).toBe("#,##0;(#,##0)");
  });

  it.each([
    "",
    "abc",
    "007",
    "01234",
    "12-15",
    "555-1234",
    "1,23,4",
    "1.2.3",
    "1,234.567,8",
    "12 apples",
    "$",
    "%",
    "1234567890123456789",
    "(-5)",
    "$12%",
    "03/04/2024",
    "2024-13-01",
    "2023-02-29",
  ])("leaves %j as text", (text) => {
    expect(parseCellText(text).kind).toBe("text");
  });
});

describe("parseCellText: dates", () => {
  function date(text: string): { iso: string; numFmt: string } {
    const parsed = parseCellText(text);
    if (parsed.kind !== "date") throw new Error(`"${text}" was read as ${parsed.kind}`);
    return { iso: parsed.value.toISOString().slice(0, 10), numFmt: parsed.numFmt };
  }

  it("reads ISO dates", () => {
    expect(date("2024-03-15")).toEqual({ iso: "2024-03-15", numFmt: "yyyy-mm-dd" });
    expect(date("2024-02-29").iso).toBe("2024-02-29");
  });

  it("reads dates that name their month", () => {
    expect(date("15 March 2024")).toEqual({ iso: "2024-03-15", numFmt: "d mmmm yyyy" });
    expect(date("15-Mar-2024")).toEqual({ iso: "2024-03-15", numFmt: "d mmm yyyy" });
    expect(date("March 15, 2024")).toEqual({ iso: "2024-03-15", numFmt: "mmmm d, yyyy" });
    expect(date("Sept. 3, 2021").iso).toBe("2021-09-03");
  });

  it("leaves ambiguous or impossible dates as text", () => {
    for (const text of ["03/04/2024", "3.4.2024", "31 Febtober 2024", "30 February 2024", "March 2024"]) {
      expect(parseCellText(text).kind, text).toBe("text");
    }
  });
});
