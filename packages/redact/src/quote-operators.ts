import type { Mupdf } from "@octavo/mupdf";
import { asLatin1, fromLatin1, operators, pageStreams, type Span } from "./content-stream.js";

/**
 * MuPDF 1.28's redaction writes a page's content anew, and writes the quote operators wrong: `(text) '` comes
 * out as `T* (text) Tj` with the leading of the input, while the moves MuPDF writes itself are TD, which set
 * the leading too; the lines after a table's column move off by the column's offset. T* it handles. So before a
 * page is redacted, its ' and " are spelled out as the T*, Tw and Tc they stand for (ISO 32000-1, 9.4.3),
 * which draws the same and is rewritten right. Only those two operators change: every other byte is kept.
 */
export function spellOutQuotes(page: Mupdf.PDFPage): void {
  for (const { stream } of pageStreams(page)) {
    const spelled = withoutQuotes(stream.readStream().asUint8Array());
    if (spelled !== undefined) stream.writeStream(spelled);
  }
}

/** The content with its ' and " spelled out, or undefined when it has none. */
export function withoutQuotes(content: Uint8Array): Uint8Array | undefined {
  const source = asLatin1(content);
  // A quote operator follows its string or white space: most pages have none, and are not read further.
  if (!/[)>\s]['"](?=[\s(<[/%]|$)/.test(source)) return undefined;
  const parts: string[] = [];
  let copied = 0;
  for (const { name, end, operands } of operators(source)) {
    const wanted = name === "'" ? 1 : name === '"' ? 3 : 0;
    if (wanted === 0 || operands.length !== wanted) continue;
    const spell = (span: Span) => source.slice(span.start, span.end);
    const [first, second] = operands as [Span, Span];
    const text = spell(operands[wanted - 1] as Span);
    if (!text.startsWith("(") && !text.startsWith("<")) continue;
    const spacing = name === '"' ? `${spell(first)} Tw ${spell(second)} Tc ` : "";
    parts.push(source.slice(copied, first.start), ` ${spacing}T* ${text} Tj `);
    copied = end;
  }
  if (parts.length === 0) return undefined;
  parts.push(source.slice(copied));
  return fromLatin1(parts.join(""));
}
