import type { PageLayout, Paragraph, TextLine, TextSpan } from "@octavo/layout";
import { unionBox } from "./draft.js";

const markerOnly =
  /^(?:[•·◦▪■●○‣⁃∙►✓*–-]|\(?\d{1,3}(?:\.\d{1,3})*[.)]?|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,5}[.)])$/u;

const bareNumber = /^\d+$/u;

type Block = PageLayout["blocks"][number];

/**
 * A number or bullet set apart in a column of its own ("3." left of "Recall Period", "VI." left of
 * "INPATIENT CODING GUIDELINES") is cut from its text by the layout's gap rule, and the reading order
 * may read the column of numbers before their texts: each is put back in front of the block whose
 * first line shares its baseline a little to its right, where that block is read.
 */
export function withHangingMarkers(blocks: PageLayout["blocks"]): PageLayout["blocks"] {
  const markerOf = new Map<Paragraph, { line: TextLine; text: string }>();
  const taken = new Set<Block>();
  for (const [index, block] of blocks.entries()) {
    const marker = loneMarker(block);
    if (marker === undefined) continue;
    // A bare number ("2") is as likely a table's figure beside its label: only the block read next.
    const among = bareNumber.test(marker.text) ? blocks.slice(index + 1, index + 2) : blocks;
    const partner = textBeside(marker.line, among, taken);
    if (partner === undefined) continue;
    markerOf.set(partner, marker);
    taken.add(block);
    taken.add(partner);
  }
  const out: PageLayout["blocks"] = [];
  for (const block of blocks) {
    const marker = block.kind === "paragraph" ? markerOf.get(block) : undefined;
    if (marker !== undefined && block.kind === "paragraph") out.push(joined(marker, block));
    else if (!taken.has(block)) out.push(block);
  }
  return out;
}

function loneMarker(block: Block): { line: TextLine; text: string } | undefined {
  const line = block.kind === "paragraph" && block.lines.length === 1 ? block.lines[0] : undefined;
  if (line === undefined) return undefined;
  const text = line.spans
    .map((span) => span.text)
    .join("")
    .trim();
  return markerOnly.test(text) ? { line, text } : undefined;
}

/** The nearest block to the right whose first line sits on the marker's baseline, within six ems. */
function textBeside(line: TextLine, blocks: PageLayout["blocks"], taken: Set<Block>): Paragraph | undefined {
  const size = line.spans[0]?.font.size ?? 10;
  let best: Paragraph | undefined;
  for (const block of blocks) {
    if (block.kind !== "paragraph" || taken.has(block) || loneMarker(block) !== undefined) continue;
    const first = block.lines[0];
    if (first === undefined || Math.abs(first.baseline - line.baseline) >= 0.3 * size) continue;
    const gap = first.box.x0 - line.box.x1;
    if (gap <= 0 || gap >= 6 * size) continue;
    if (best === undefined || first.box.x0 < (best.lines[0]?.box.x0 ?? Number.POSITIVE_INFINITY))
      best = block;
  }
  return best;
}

function joined(marker: { line: TextLine; text: string }, block: Paragraph): Paragraph {
  const [first, ...rest] = block.lines as [TextLine, ...TextLine[]];
  const markerSpan = { ...(marker.line.spans[0] as TextSpan), text: `${marker.text} ` };
  const line = { ...first, spans: [markerSpan, ...first.spans], box: unionBox(marker.line.box, first.box) };
  return {
    ...block,
    box: unionBox(marker.line.box, block.box),
    lines: [line, ...rest],
    listMarker: marker.text,
  };
}
