/*
 * The placeholder language, parsed here and never evaluated as code: a path into the data, a literal, one
 * comparison, and formatters after "|".
 *
 *   {customer.name}   {items.0.sku}   {.}   {total | currency:"EUR"}   {#status == "paid"}…{/}
 *
 * A path reads own properties only, of objects and arrays the JSON parser made, so no placeholder reaches a
 * prototype, a constructor or a function; "__proto__", "constructor" and "prototype" are refused outright.
 */

export type Literal = string | number | boolean | null;

export type Operand = { kind: "path"; path: readonly string[] } | { kind: "literal"; value: Literal };

export type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=";

export interface Formatter {
  name: string;
  args: readonly Literal[];
}

export interface Expression {
  left: Operand;
  compare?: { op: Comparison; right: Operand };
  formatters: readonly Formatter[];
}

/** A placeholder the language does not read; `message` says what is wrong in the client's words. */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}

const forbidden = new Set(["__proto__", "constructor", "prototype"]);

type Token =
  | { type: "ident"; text: string }
  | { type: "number"; value: number }
  | { type: "string"; value: string }
  | { type: "punct"; text: string };

const punctuation = ["==", "!=", "<=", ">=", "<", ">", "|", ":", ".", ","];

/** Word-processors replace straight quotes as the author types: the curly ones quote strings too. */
const quotes: Record<string, string> = { '"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019" };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source.charAt(at);
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    const close = quotes[char];
    if (close !== undefined) {
      const end = source.indexOf(close, at + 1);
      if (end < 0) throw new ExpressionError(`a string opened with ${char} is not closed`);
      tokens.push({ type: "string", value: source.slice(at + 1, end) });
      at = end + 1;
      continue;
    }
    // After "." a digit is a path segment (items.0.sku), not a number.
    const number = lastIsDot(tokens) ? null : /^-?\d+(\.\d+)?(?![\p{L}_$])/u.exec(source.slice(at));
    if (number) {
      tokens.push({ type: "number", value: Number(number[0]) });
      at += number[0].length;
      continue;
    }
    const word = /^[\p{L}\p{N}_$-]+/u.exec(source.slice(at));
    if (word) {
      tokens.push({ type: "ident", text: word[0] });
      at += word[0].length;
      continue;
    }
    const punct = punctuation.find((candidate) => source.startsWith(candidate, at));
    if (punct === undefined) throw new ExpressionError(`"${char}" has no meaning in a placeholder`);
    tokens.push({ type: "punct", text: punct });
    at += punct.length;
  }
  return tokens;
}

function lastIsDot(tokens: readonly Token[]): boolean {
  const last = tokens.at(-1);
  return last?.type === "punct" && last.text === ".";
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  expression(): Expression {
    const left = this.operand();
    const op = this.peekPunct(["==", "!=", "<=", ">=", "<", ">"]);
    let compare: Expression["compare"];
    if (op !== undefined) {
      this.at += 1;
      compare = { op: op as Comparison, right: this.operand() };
    }
    const formatters: Formatter[] = [];
    while (this.peekPunct(["|"])) {
      this.at += 1;
      formatters.push(this.formatter());
    }
    const rest = this.tokens[this.at];
    if (rest !== undefined) throw new ExpressionError(`unexpected ${describe(rest)}`);
    return { left, ...(compare ? { compare } : {}), formatters };
  }

  private operand(): Operand {
    const token = this.tokens[this.at];
    if (token === undefined) throw new ExpressionError("a value or a data path is missing");
    if (token.type === "string" || token.type === "number") {
      this.at += 1;
      return { kind: "literal", value: token.value };
    }
    if (token.type === "punct" && token.text === ".") {
      this.at += 1;
      const next = this.tokens[this.at];
      return { kind: "path", path: next?.type === "ident" || next?.type === "number" ? this.path() : [] };
    }
    if (token.type !== "ident") throw new ExpressionError(`unexpected ${describe(token)}`);
    if (token.text === "true" || token.text === "false" || token.text === "null") {
      this.at += 1;
      return { kind: "literal", value: token.text === "null" ? null : token.text === "true" };
    }
    return { kind: "path", path: this.path() };
  }

  private path(): string[] {
    const path = [this.segment()];
    while (this.peekPunct(["."])) {
      this.at += 1;
      path.push(this.segment());
    }
    return path;
  }

  private segment(): string {
    const token = this.tokens[this.at];
    if (token?.type !== "ident" && token?.type !== "number") {
      throw new ExpressionError(
        token === undefined ? "a name is missing after '.'" : `unexpected ${describe(token)}`,
      );
    }
    this.at += 1;
    const name = token.type === "ident" ? token.text : String(token.value);
    if (forbidden.has(name)) throw new ExpressionError(`"${name}" may not be read`);
    return name;
  }

  private formatter(): Formatter {
    const token = this.tokens[this.at];
    if (token?.type !== "ident") throw new ExpressionError("a formatter's name is missing after '|'");
    this.at += 1;
    const args: Literal[] = [];
    while (this.peekPunct([":", ","])) {
      this.at += 1;
      const operand = this.operand();
      if (operand.kind !== "literal") {
        throw new ExpressionError(`the argument of ${token.text} must be a quoted string or a number`);
      }
      args.push(operand.value);
    }
    return { name: token.text, args };
  }

  private peekPunct(texts: readonly string[]): string | undefined {
    const token = this.tokens[this.at];
    return token?.type === "punct" && texts.includes(token.text) ? token.text : undefined;
  }
}

function describe(token: Token): string {
  if (token.type === "punct" || token.type === "ident") return `"${token.text}"`;
  if (token.type === "string") return `the string "${token.value}"`;
  return `the number ${token.value}`;
}

/** Parses a placeholder's text (without its braces and its #, ^ or / sign). Throws ExpressionError. */
export function parseExpression(source: string): Expression {
  const tokens = tokenize(source);
  if (tokens.length === 0) throw new ExpressionError("the placeholder is empty");
  return new Parser(tokens).expression();
}

/** What a path found: the value, or that nothing in scope has it (a placeholder with no data). */
export type Lookup = { found: true; value: unknown } | { found: false };

/**
 * A path's value among nested scopes, innermost first (a loop's item, then its parent's, then the data):
 * the first scope owning the path's first name reads the rest. Own properties only.
 */
export function lookup(path: readonly string[], scopes: readonly unknown[]): Lookup {
  if (path.length === 0) return scopes.length > 0 ? { found: true, value: scopes[0] } : { found: false };
  const [first, ...rest] = path as [string, ...string[]];
  for (const scope of scopes) {
    if (!owns(scope, first)) continue;
    let value = read(scope, first);
    for (const name of rest) {
      if (!owns(value, name)) return { found: false };
      value = read(value, name);
    }
    return { found: true, value };
  }
  return { found: false };
}

function owns(value: unknown, name: string): boolean {
  if (Array.isArray(value)) return /^\d+$/.test(name) && Number(name) < value.length;
  return typeof value === "object" && value !== null && Object.hasOwn(value, name);
}

function read(value: unknown, name: string): unknown {
  return (value as Record<string, unknown>)[name];
}

/** The comparison's verdict; numbers compare as numbers, anything else as text. */
export function compare(left: unknown, op: Comparison, right: unknown): boolean {
  if (op === "==") return looselyEqual(left, right);
  if (op === "!=") return !looselyEqual(left, right);
  const numeric = typeof left === "number" && typeof right === "number";
  const [a, b] = numeric ? [left, right] : [String(left ?? ""), String(right ?? "")];
  if (op === "<") return a < b;
  if (op === "<=") return a <= b;
  if (op === ">") return a > b;
  return a >= b;
}

/** "5" equals 5: a template's literal and JSON data often differ only in that. */
function looselyEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (left === null || right === null || left === undefined || right === undefined) return false;
  if (typeof left === "object" || typeof right === "object") return false;
  return String(left) === String(right);
}
