import {
  compare,
  type Expression,
  ExpressionError,
  lookup,
  type Operand,
  parseExpression,
} from "./expressions.js";
import { applyFormatters, checkFormatter, type FormatSettings } from "./formatters.js";

/** What a template's placeholders are evaluated with, beside the data. */
export interface PlaceholderSettings extends FormatSettings {
  /** "error": a placeholder with no data fails the document; "empty": it is left blank. */
  missing: "error" | "empty";
  /** An image placeholder's value → the text that marks where the picture goes (images.ts). */
  imageMarker?: (value: unknown, tag: string) => string;
}

/** A placeholder that names data the item does not have. */
export class MissingData extends Error {
  override readonly name = "MissingData";
  constructor(readonly tag: string) {
    super(`no value for "${tag}" in the data`);
  }
}

/** The slice of docxtemplater's scope context the parser reads. */
interface ScopeContext {
  num: number;
  scopeList: readonly unknown[];
}

/** Marks an operand the data has no value for, once `missing: "empty"` let it through. */
const absent = Symbol("absent");

function operandValue(
  operand: Operand,
  scopes: readonly unknown[],
  tag: string,
  settings: PlaceholderSettings,
) {
  if (operand.kind === "literal") return operand.value;
  const found = lookup(operand.path, scopes);
  if (found.found) return found.value;
  if (settings.missing === "error") throw new MissingData(tag);
  return absent;
}

/** The placeholder's value; a blank, unformatted, where the data has none and that is allowed. */
function evaluate(
  expression: Expression,
  scopes: readonly unknown[],
  tag: string,
  settings: PlaceholderSettings,
) {
  const left = operandValue(expression.left, scopes, tag, settings);
  const right = expression.compare && operandValue(expression.compare.right, scopes, tag, settings);
  if (left === absent || right === absent) return expression.compare ? false : undefined;
  const value = expression.compare ? compare(left, expression.compare.op, right) : left;
  return applyFormatters(value, expression.formatters, settings);
}

/**
 * docxtemplater's parser option: each tag's text parsed once by our language, then read against the scopes.
 * docxtemplater calls get() for the innermost scope first and moves outwards while it gets null; this reads
 * the whole chain on the first call, so a null value is a blank and not a reason to look further out.
 */
export function placeholderParser(settings: PlaceholderSettings) {
  return (tag: string) => {
    const trimmed = tag.trim();
    // A slide loop's marker ({:items}, slides.ts) has done its work before rendering.
    if (trimmed.startsWith(":")) return { get: () => "" };
    const image = trimmed.startsWith("%");
    const expression = parseExpression(image ? trimmed.slice(1) : trimmed);
    for (const formatter of expression.formatters) checkFormatter(formatter);
    if (image && settings.imageMarker === undefined) {
      throw new ExpressionError("pictures ({%name}) are placed in Word templates only");
    }
    return {
      get(_scope: unknown, context: ScopeContext) {
        const scopes = context.scopeList.slice(0, context.num + 1).reverse();
        if (context.num !== context.scopeList.length - 1) return undefined;
        const value = evaluate(expression, scopes, trimmed, settings);
        if (image) return settings.imageMarker?.(value, trimmed) ?? "";
        return value ?? "";
      },
    };
  };
}
