import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import type { StageListener } from "./stages.js";

export type CompressionLevel = "low" | "recommended" | "extreme";

export interface CompressOptions {
  /** Strength; ignored when `targetKB` is set. */
  level: CompressionLevel;
  /** Try to get the file under this many kilobytes (1 KB = 1024 bytes); the spec allows 20..100000. */
  targetKB?: number;
  /** Turn every colour (text, vector graphics, images) into gray. */
  grayscale: boolean;
}

export interface CompressionReport {
  inputBytes: number;
  outputBytes: number;
  /** outputBytes / inputBytes, 1 when the input was returned unchanged. */
  ratio: number;
  /** The setting that produced the output, in words, e.g. "recommended: images ≤ 150 dpi, JPEG quality 75". */
  setting: string;
  targetKB?: number;
  targetMet?: boolean;
}

export interface CompressResult extends EngineResult {
  report: CompressionReport;
}

export type CompressInput = EngineInput;
export interface CompressContext extends EngineContext {
  /** Hears each stage as it ends (qpdf checks, Ghostscript rewrites, image and lossless passes): where a job's time goes. */
  onStage?: StageListener;
}
