import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import { type StampPosition, stampPdf } from "./stamp.js";

export type { StampPosition } from "./stamp.js";

export interface WatermarkOptions {
  /** 1–200 characters. */
  text: string;
  /** 6–200 points. */
  fontSize: number;
  /** "#RRGGBB" */
  color: string;
  /** Fill opacity, 0.05–1. */
  opacity: number;
  /** -90..90 degrees, counter-clockwise as the reader sees the page. */
  rotation: number;
  position: StampPosition;
  /** "1-3,5": the pages to mark; omitted = all pages. */
  pages?: string;
}

/** Room kept between a watermark placed at an edge or corner and the visible edges of the page. */
const watermarkMargin = 36;

/**
 * Draws `text` over the chosen pages as real, selectable text, translucent and turned as asked, upright
 * as the reader sees each page; the page content underneath stays as it was.
 */
export function watermark(
  input: EngineInput,
  options: WatermarkOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return stampPdf(
    input,
    {
      operation: "watermark",
      label: "the watermark",
      pages: options.pages,
      style: {
        fontSize: options.fontSize,
        color: options.color,
        opacity: options.opacity,
        rotation: options.rotation,
        position: options.position,
        margin: watermarkMargin,
      },
      textOf: () => options.text,
    },
    ctx,
  );
}
