import type { PageLayout, TextSpan } from "@octavo/layout";
import { unionBox } from "./draft.js";

const markerOnly = /^(?:[•·◦▪■●○‣⁃∙►✓*–-]|\(?\d{1,3}(?:\.\d{1,3})*[.)]?|\(?[a-zA-Z][.)])$/u;

/**
 * A number or bullet set apart in a column of its own ("3." left of "Recall Period") is cut from its
 * text by the layout's gap rule: the two are put back together when they share a baseline.
 */
export function withHangingMarkers(blocks: PageLayout["blocks"]): PageLayout["blocks"] {
  const out: PageLayout["blocks"] = [];
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index];
    const next = blocks[index + 1];
    const line = block?.kind === "paragraph" && block.lines.length === 1 ? block.lines[0] : undefined;
    const first = next?.kind === "paragraph" ? next.lines[0] : undefined;
    const text =
      line?.spans
        .map((span) => span.text)
        .join("")
        .trim() ?? "";
    const size = line?.spans[0]?.font.size ?? 10;
    if (
      line !== undefined &&
      first !== undefined &&
      next?.kind === "paragraph" &&
      markerOnly.test(text) &&
      Math.abs(first.baseline - line.baseline) < 0.3 * size &&
      first.box.x0 > line.box.x1 &&
      first.box.x0 - line.box.x1 < 6 * size
    ) {
      const marker = { ...(line.spans[0] as TextSpan), text: `${text} ` };
      const joined = { ...first, spans: [marker, ...first.spans], box: unionBox(line.box, first.box) };
      out.push({
        ...next,
        box: unionBox(line.box, next.box),
        lines: [joined, ...next.lines.slice(1)],
        listMarker: text,
      });
      index += 1;
    } else if (block !== undefined) out.push(block);
  }
  return out;
}
