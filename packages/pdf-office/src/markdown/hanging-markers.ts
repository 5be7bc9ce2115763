import type { PageLayout, Paragraph, TextLine, TextSpan } from "@octavo/layout";
import { unionBox } from "./draft.js";

/** Bullets (Symbol's and Wingdings' private-use ones too), numbers, letters and roman numerals. */
const markerOnly =
  /^(?:[•·◦▪■●○‣⁃∙►✓*–\-\uf020-\uf0ff]|\(?\d{1,3}(?:\.\d{1,3})*[.)]?|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,5}[.)])$/u;

const bareNumber = /^\d+$/u;

type Block = PageLayout["blocks"][number];

interface Marker {
  line: TextLine;
  text: string;
}

/**
 * A number or bullet set apart in a column of its own ("3." left of "Recall Period", "VI." left of
 * "INPATIENT CODING GUIDELINES", a Word list's bullets left of their items) is cut from its text by the
 * layout's gap rule, and the reading order may read the column of markers before their texts: each is
 * put back in front of the line that shares its baseline a little to its right, and a block holding
 * several such lines is cut into one item per marker, where that block is read.
 */
export function withHangingMarkers(blocks: PageLayout["blocks"]): PageLayout["blocks"] {
  const markersOf = new Map<Paragraph, Map<number, Marker>>();
  const taken = new Set<Block>();
  const lone = blocks.map(loneMarker);
  const texts = blocks.filter((_, index) => lone[index] === undefined);
  for (const [index, block] of blocks.entries()) {
    const marker = lone[index];
    if (marker === undefined) continue;
    // A bare number ("2") is as likely a table's figure beside its label: only the block read next,
    // and only its first line.
    const bare = bareNumber.test(marker.text);
    const next = lone[index + 1] === undefined ? blocks.slice(index + 1, index + 2) : [];
    const found = lineBeside(marker.line, bare ? next : texts, markersOf);
    if (found === undefined || (bare && found.line > 0)) continue;
    const lines = markersOf.get(found.block) ?? new Map<number, Marker>();
    lines.set(found.line, marker);
    markersOf.set(found.block, lines);
    taken.add(block);
  }
  const out: PageLayout["blocks"] = [];
  for (const block of blocks) {
    const markers = block.kind === "paragraph" ? markersOf.get(block) : undefined;
    if (markers !== undefined && block.kind === "paragraph") out.push(...items(block, markers));
    else if (!taken.has(block)) out.push(block);
  }
  return out;
}

function loneMarker(block: Block): Marker | undefined {
  const line = block.kind === "paragraph" && block.lines.length === 1 ? block.lines[0] : undefined;
  if (line === undefined) return undefined;
  const text = line.spans
    .map((span) => span.text)
    .join("")
    .trim();
  return markerOnly.test(text) ? { line, text } : undefined;
}

/** Of blocks of text, the nearest line to the right on the marker's baseline, within six ems, with no marker yet. */
function lineBeside(
  marker: TextLine,
  blocks: PageLayout["blocks"],
  markersOf: Map<Paragraph, Map<number, Marker>>,
): { block: Paragraph; line: number } | undefined {
  const size = marker.spans[0]?.font.size ?? 10;
  let best: { block: Paragraph; line: number; x0: number } | undefined;
  for (const block of blocks) {
    if (block.kind !== "paragraph") continue;
    block.lines.forEach((line, index) => {
      if (Math.abs(line.baseline - marker.baseline) >= 0.3 * size || markersOf.get(block)?.has(index)) return;
      const gap = line.box.x0 - marker.box.x1;
      if (gap > 0 && gap < 6 * size && (best === undefined || line.box.x0 < best.x0))
        best = { block, line: index, x0: line.box.x0 };
    });
  }
  return best;
}

/** The block cut before each line that has a marker, each such piece an item led by its marker. */
function items(block: Paragraph, markers: Map<number, Marker>): Paragraph[] {
  const starts = [...new Set([0, ...markers.keys()])].sort((a, b) => a - b);
  return starts.map((start, index) => {
    const lines = block.lines.slice(start, starts[index + 1] ?? block.lines.length);
    const marker = markers.get(start);
    const piece: Paragraph = {
      ...block,
      lines,
      box: lines.map((line) => line.box).reduce(unionBox),
      ...(index > 0 ? { spaceBefore: 0, firstLineIndent: 0 } : {}),
    };
    return marker === undefined ? piece : withMarker(piece, marker);
  });
}

function withMarker(block: Paragraph, marker: Marker): Paragraph {
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
