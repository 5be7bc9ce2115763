/**
 * Finds the number operands of a PDF content stream (ISO 32000-1 7.2 lexical rules), skipping
 * comments, strings, hex strings, names and inline image data, so that a number-looking run of bytes
 * inside any of those is never taken for an operand. MuPDF.js reads and writes streams but exposes no
 * content-stream lexer, and the only change made with this one is to number tokens.
 */

export interface NumberToken {
  start: number;
  end: number;
  text: string;
}

const whitespace = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const delimiters = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const numberPattern = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

function isRegular(byte: number): boolean {
  return !whitespace.has(byte) && !delimiters.has(byte);
}

/** The end of a literal string that opens at `start` (balanced parentheses, backslash escapes). */
function endOfString(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let at = start; at < bytes.length; at += 1) {
    const byte = bytes[at];
    if (byte === 0x5c) at += 1;
    else if (byte === 0x28) depth += 1;
    else if (byte === 0x29 && --depth === 0) return at + 1;
  }
  return bytes.length;
}

/** Past an inline image's data: the first "EI" between whitespace after the ID operator. */
function endOfInlineImage(bytes: Uint8Array, dataStart: number): number {
  for (let at = dataStart; at + 1 < bytes.length; at += 1) {
    if (bytes[at] !== 0x45 || bytes[at + 1] !== 0x49) continue;
    const before = bytes[at - 1] ?? 0x20;
    const after = bytes[at + 2];
    if (whitespace.has(before) && (after === undefined || whitespace.has(after))) return at + 2;
  }
  return bytes.length;
}

function indexOfByte(bytes: Uint8Array, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length : at;
}

/** Every number token of a content stream, in order. */
export function* numberTokens(bytes: Uint8Array): Generator<NumberToken> {
  let at = 0;
  while (at < bytes.length) {
    const byte = bytes[at] as number;
    if (whitespace.has(byte)) at += 1;
    else if (byte === 0x25) at = indexOfByte(bytes, 0x0a, at);
    else if (byte === 0x28) at = endOfString(bytes, at);
    else if (byte === 0x3c && bytes[at + 1] !== 0x3c) at = indexOfByte(bytes, 0x3e, at) + 1;
    else if (byte === 0x2f) {
      at += 1;
      while (at < bytes.length && isRegular(bytes[at] as number)) at += 1;
    } else if (delimiters.has(byte)) at += bytes[at + 1] === byte && (byte === 0x3c || byte === 0x3e) ? 2 : 1;
    else {
      const start = at;
      while (at < bytes.length && isRegular(bytes[at] as number)) at += 1;
      const text = Buffer.from(bytes.subarray(start, at)).toString("latin1");
      if (numberPattern.test(text)) yield { start, end: at, text };
      else if (text === "ID") at = endOfInlineImage(bytes, at + 1);
    }
  }
}

/** Replaces the number tokens `replace` returns text for; undefined when none changed. */
export function rewriteNumbers(
  bytes: Uint8Array,
  replace: (token: NumberToken) => string | undefined,
): Uint8Array | undefined {
  const parts: Uint8Array[] = [];
  let copied = 0;
  for (const token of numberTokens(bytes)) {
    const replacement = replace(token);
    if (replacement === undefined) continue;
    parts.push(bytes.subarray(copied, token.start), Buffer.from(replacement, "latin1"));
    copied = token.end;
  }
  if (parts.length === 0) return undefined;
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts);
}
