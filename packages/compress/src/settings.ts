import type { CompressionLevel } from "./types.js";

/** How images are resampled and re-encoded. Bilevel (1-bit) images are never touched. */
export interface ImageSetting {
  /** Short name used in reports. */
  name: string;
  /** Images drawn at more than `dpi × threshold` pixels per inch are resampled to `dpi`. */
  dpi: number;
  threshold: number;
  /** JPEG quality (mozjpeg, 4:2:0 chroma subsampling for colour). */
  quality: number;
}

/**
 * The lossy levels, chosen on the bench (docs/engines.md, "Compress"; SSIM of pages rendered at
 * 100 dpi, image pass + lossless pass):
 * - recommended, 150 dpi / threshold 1 / q70: pdfjs_issue7229 (two 200 dpi JPEG scans) 0.394 of the input at
 *   SSIM 0.994, where threshold 1.5 / q75 (Ghostscript's /ebook rule) left it at 0.699; docling_old_newspaper
 *   0.068 at 0.976; q65 saved only 1–2 % more.
 * - extreme, 96 dpi / threshold 1 / q50: about 30 px cap height on body text in scans, still readable at
 *   100 % zoom; docling_old_newspaper 0.048 at 0.963, pdfjs_issue7229 0.141 at 0.959. 72 dpi cost up to
 *   0.05 SSIM (pikepdf_congress 0.918 → 0.869, a worst page of 0.826 on ocrmypdf_multipage at q40).
 */
export const imageSettings = {
  recommended: { name: "recommended", dpi: 150, threshold: 1, quality: 70 },
  extreme: { name: "extreme", dpi: 96, threshold: 1, quality: 50 },
} as const satisfies Record<Exclude<CompressionLevel, "low">, ImageSetting>;

/** A step of the target-size search: lossless first, then ever stronger image settings. */
export type LadderStep = { kind: "lossless" } | { kind: "images"; setting: ImageSetting };

/** Gentlest first. The first step whose result fits the target wins. */
export const targetLadder: readonly LadderStep[] = [
  { kind: "lossless" },
  { kind: "images", setting: { name: "gentle", dpi: 200, threshold: 1.5, quality: 85 } },
  { kind: "images", setting: imageSettings.recommended },
  { kind: "images", setting: { name: "strong", dpi: 120, threshold: 1, quality: 60 } },
  { kind: "images", setting: imageSettings.extreme },
  { kind: "images", setting: { name: "strongest", dpi: 72, threshold: 1, quality: 40 } },
];

export function describeSetting(step: LadderStep): string {
  if (step.kind === "lossless") return "lossless: streams recompressed, objects deduplicated and packed";
  const { name, dpi, quality } = step.setting;
  return `${name}: images ≤ ${dpi} dpi, JPEG quality ${quality}`;
}
