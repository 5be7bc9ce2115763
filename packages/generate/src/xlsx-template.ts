import { JobFailure } from "@octavo/engines/errors";
import type PizZip from "pizzip";
import { compare, type Expression, ExpressionError, lookup, parseExpression } from "./expressions.js";
import { applyFormatters, checkFormatter } from "./formatters.js";
import { openPackage } from "./office-template.js";
import type { PlaceholderSettings } from "./placeholder-parser.js";

/*
 * Excel templates, which docxtemplater's free core does not fill. The same placeholder language in cell
 * text: {name} anywhere in a cell; a cell that is one placeholder with a number keeps it a number (so sums
 * still add up); a row holding {#items} in one cell and {/} in a later one repeats per item, and the rows
 * below move down, with the formulas' references, merged cells and the sheet's dimension moved with them
 * and a range ending on the loop row grown to the last copy (=SUM(D5:D5) → =SUM(D5:D104)).
 */

interface Cell {
  column: string;
  /** The `<c>` element's attributes but r and t. */
  attributes: string;
  /** The cell's XML when it holds no placeholder (kept as it is, moved with its row). */
  xml: string;
  text?: string;
}

interface Row {
  number: number;
  attributes: string;
  cells: Cell[];
}

const tagPattern = /\{([^{}]*)\}/g;

function decode(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

function encode(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function textOf(xml: string): string {
  return decode([...xml.matchAll(/<t(?:\s[^>]*)?>([^<]*)<\/t>/g)].map((match) => match[1]).join(""));
}

function sharedStrings(zip: PizZip): string[] {
  const xml = zip.file("xl/sharedStrings.xml")?.asText() ?? "";
  return [...xml.matchAll(/<si>(.*?)<\/si>/gs)].map((match) => textOf(match[1] ?? ""));
}

function parseRows(xml: string, strings: readonly string[]): Row[] {
  const rows: Row[] = [];
  for (const match of xml.matchAll(/<row\b([^>]*?)(?:\/>|>(.*?)<\/row>)/gs)) {
    const attributes = match[1] ?? "";
    const number = Number(/\br="(\d+)"/.exec(attributes)?.[1]);
    const cells: Cell[] = [];
    for (const cell of (match[2] ?? "").matchAll(/<c\b([^>]*?)(?:\/>|>(.*?)<\/c>)/gs)) {
      const cellAttributes = cell[1] ?? "";
      const column = /\br="([A-Z]+)\d+"/.exec(cellAttributes)?.[1] ?? "";
      const type = /\bt="([^"]+)"/.exec(cellAttributes)?.[1];
      const body = cell[2] ?? "";
      const text =
        type === "s"
          ? strings[Number(/<v>(\d+)<\/v>/.exec(body)?.[1])]
          : type === "inlineStr"
            ? textOf(body)
            : undefined;
      const rest = cellAttributes.replace(/\s(r|t)="[^"]*"/g, "");
      cells.push({ column, attributes: rest, xml: cell[0], ...(text?.includes("{") ? { text } : {}) });
    }
    rows.push({ number, attributes: attributes.replace(/\sr="\d+"/, ""), cells });
  }
  return rows;
}

/** A row loop: the list the row repeats over, from its {#…} cell to its {/…} cell. */
function loopOf(row: Row): Expression | undefined {
  const opening = row.cells.find((cell) => cell.text !== undefined && /\{\s*#/.test(cell.text));
  if (!opening?.text) return undefined;
  const closes = row.cells.some((cell) => cell.text !== undefined && /\{\s*\//.test(cell.text));
  const source = /\{\s*#([^{}]*)\}/.exec(opening.text)?.[1] ?? "";
  if (!closes)
    throw new ExpressionError(`{#${source.trim()}} opens a row loop that no {/} closes in the same row`);
  return parseExpression(source);
}

/** Where the template's rows go once the loop rows are repeated. */
class RowMap {
  /** Loop row → copies made of it. */
  constructor(private readonly copies: ReadonlyMap<number, number>) {}

  /** The first row a template row becomes. */
  first(row: number): number {
    let shift = 0;
    for (const [loop, copies] of this.copies) if (loop < row) shift += copies - 1;
    return row + shift;
  }

  /** A formula of template row `row`, copy `copy`: its references moved, and ranges ending on a loop row grown. */
  formula(formula: string, row: number, copy: number): string {
    const at = (column: string, target: number) =>
      `${column}${target === row && this.copies.has(row) ? this.first(row) + copy : this.first(target)}`;
    return formula.replace(
      /(\$?[A-Z]{1,3}\$?)(\d+)(?::(\$?[A-Z]{1,3}\$?)(\d+))?/g,
      (_whole, c1: string, r1: string, c2: string | undefined, r2: string | undefined) => {
        if (c2 === undefined || r2 === undefined) return at(c1, Number(r1));
        const end = Number(r2);
        const copies = this.copies.get(end);
        if (copies !== undefined && end !== row && Number(r1) <= end) {
          return `${at(c1, Number(r1))}:${c2}${this.first(end) + Math.max(copies, 1) - 1}`;
        }
        return `${at(c1, Number(r1))}:${at(c2, end)}`;
      },
    );
  }

  /** A merged range or the dimension, moved. */
  reference(reference: string): string {
    return reference.replace(
      /(\$?[A-Z]{1,3}\$?)(\d+)/g,
      (_whole, column: string, target: string) => `${column}${this.first(Number(target))}`,
    );
  }
}

/** A filled Excel template, rendered once per data item. */
export class SheetTemplate {
  private readonly sheets: string[];

  constructor(
    private readonly bytes: Buffer,
    private readonly name: string,
    private readonly settings: PlaceholderSettings,
  ) {
    const zip = openPackage(bytes, name, "xlsx");
    this.sheets = Object.keys(zip.files).filter((part) => /^xl\/worksheets\/sheet\d+\.xml$/.test(part));
    // Syntax errors before any data is read.
    const strings = sharedStrings(zip);
    const problems: string[] = [];
    for (const sheet of this.sheets) {
      for (const row of parseRows(zip.file(sheet)?.asText() ?? "", strings)) {
        for (const cell of row.cells) {
          for (const tag of cell.text?.matchAll(tagPattern) ?? []) {
            const source = (tag[1] ?? "").trim().replace(/^[#/^]/, "");
            if (/^\s*\//.test(tag[1] ?? "")) continue;
            try {
              for (const formatter of parseExpression(source).formatters) checkFormatter(formatter);
            } catch (error) {
              problems.push(
                `${tag[0]} in ${where(sheet, cell.column, row.number)}: ${(error as Error).message}`,
              );
            }
          }
        }
        try {
          loopOf(row);
        } catch (error) {
          problems.push(`${where(sheet, "", row.number)}: ${(error as Error).message}`);
        }
      }
    }
    if (problems.length > 0) {
      throw new JobFailure(
        "invalid_input",
        `${name} has template errors: ${problems.slice(0, 20).join("; ")}.`,
      );
    }
  }

  render(data: Readonly<Record<string, unknown>>, item?: number): Buffer {
    const zip = openPackage(this.bytes, this.name, "xlsx");
    const strings = sharedStrings(zip);
    const missing: string[] = [];
    for (const sheet of this.sheets) {
      const xml = zip.file(sheet)?.asText() ?? "";
      zip.file(sheet, this.renderSheet(sheet, xml, strings, data, missing));
    }
    if (missing.length > 0) {
      throw new JobFailure(
        "invalid_options",
        `The data${item === undefined ? "" : ` (item ${item} of the data)`} has no value for ${missing.length === 1 ? "a placeholder" : `${missing.length} placeholders`} of ${this.name}: ${missing.slice(0, 20).join("; ")}. Add the values, or send missing: "empty" to leave them blank.`,
      );
    }
    // Formulas are recalculated by whoever opens the file: drop the cached chain.
    zip.remove("xl/calcChain.xml");
    return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
  }

  private renderSheet(
    sheet: string,
    xml: string,
    strings: readonly string[],
    data: Readonly<Record<string, unknown>>,
    missing: string[],
  ): string {
    const rows = parseRows(xml, strings);
    const scopesOf = new Map<Row, unknown[][]>();
    const copies = new Map<number, number>();
    for (const row of rows) {
      const loop = loopOf(row);
      const scopes = loop
        ? this.loopItems(loop, data, sheet, row, missing).map((each) => [each, data])
        : [[data]];
      scopesOf.set(row, scopes);
      if (loop) copies.set(row.number, scopes.length);
    }
    const map = new RowMap(copies);
    const written = rows.flatMap((row) =>
      (scopesOf.get(row) ?? []).map((scopes, copy) =>
        this.renderRow(row, map.first(row.number) + copy, scopes, sheet, missing).replace(
          /<f>([^<]*)<\/f>/g,
          (_f, formula: string) => `<f>${map.formula(formula, row.number, copy)}</f>`,
        ),
      ),
    );
    // Cached results of formulas are stale once rows moved or values changed: whoever opens it recalculates.
    const sheetData = written.join("").replace(/(<\/f>)<v>[^<]*<\/v>/g, "$1");
    const moved = xml.replace(
      /(<mergeCell ref="|<dimension ref=")([^"]+)"/g,
      (_m, start: string, ref: string) => `${start}${map.reference(ref)}"`,
    );
    return moved.replace(/<sheetData>.*<\/sheetData>|<sheetData\/>/s, `<sheetData>${sheetData}</sheetData>`);
  }

  private loopItems(
    loop: Expression,
    data: Readonly<Record<string, unknown>>,
    sheet: string,
    row: Row,
    missing: string[],
  ): unknown[] {
    const value = this.value(loop, [data], `${where(sheet, "", row.number)}`, missing);
    if (Array.isArray(value)) return value;
    return value === undefined || value === null || value === false || value === "" ? [] : [data];
  }

  private renderRow(
    row: Row,
    number: number,
    scopes: readonly unknown[],
    sheet: string,
    missing: string[],
  ): string {
    const cells = row.cells.map((cell) => {
      const reference = `${cell.column}${number}`;
      if (cell.text === undefined) return cell.xml.replace(/\br="[A-Z]+\d+"/, `r="${reference}"`);
      const text = cell.text.replace(/\{\s*[#/^][^{}]*\}/g, "");
      const whole = /^\{([^{}]*)\}$/.exec(text.trim());
      if (whole) {
        const value = this.value(
          parseExpression(whole[1] ?? ""),
          scopes,
          where(sheet, cell.column, row.number),
          missing,
        );
        if (typeof value === "number" && Number.isFinite(value))
          return `<c r="${reference}"${cell.attributes}><v>${value}</v></c>`;
        return inlineCell(reference, cell.attributes, String(value ?? ""));
      }
      const filled = text.replace(tagPattern, (_tag, source: string) =>
        String(
          this.value(parseExpression(source), scopes, where(sheet, cell.column, row.number), missing) ?? "",
        ),
      );
      return inlineCell(reference, cell.attributes, filled);
    });
    return `<row r="${number}"${row.attributes}>${cells.join("")}</row>`;
  }

  private value(
    expression: Expression,
    scopes: readonly unknown[],
    location: string,
    missing: string[],
  ): unknown {
    let absent = false;
    const read = (operand: Expression["left"]): unknown => {
      if (operand.kind === "literal") return operand.value;
      const found = lookup(operand.path, scopes);
      if (found.found) return found.value;
      absent = true;
      if (this.settings.missing === "error")
        missing.push(`{${operand.path.join(".") || "."}} in ${location}`);
      return undefined;
    };
    const left = read(expression.left);
    const right = expression.compare ? read(expression.compare.right) : undefined;
    // A placeholder with no data is reported (or left blank), not formatted.
    if (absent) return expression.compare ? false : undefined;
    const value = expression.compare ? compare(left, expression.compare.op, right) : left;
    try {
      return applyFormatters(value, expression.formatters, this.settings);
    } catch (error) {
      if (error instanceof ExpressionError)
        throw new JobFailure("invalid_options", `${location}: ${error.message}.`);
      throw error;
    }
  }
}

function inlineCell(reference: string, attributes: string, text: string): string {
  return `<c r="${reference}"${attributes} t="inlineStr"><is><t xml:space="preserve">${encode(text)}</t></is></c>`;
}

function where(sheet: string, column: string, row: number): string {
  const number = /sheet(\d+)\.xml$/.exec(sheet)?.[1];
  return `sheet ${number}, ${column === "" ? `row ${row}` : `cell ${column}${row}`}`;
}
