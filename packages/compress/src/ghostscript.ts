import { ghostscript, type ToolOutcome } from "./tools.js";

/**
 * Ghostscript's pdfwrite without image resampling: fonts are subset and compressed (the part of a file that
 * the image pass cannot shrink), JPEG and JPEG 2000 images pass through untouched, other images are
 * re-encoded losslessly (Flate). The image pass runs on the result afterwards. With `gray`, every colour in
 * text, vector graphics and images is converted to DeviceGray.
 *
 * `legacy` runs Ghostscript 10.0's deprecated PostScript-based PDF interpreter instead of the new one: on
 * pdfjs_issue19971_jpn the new one wrote Japanese and Arabic glyphs without their Unicode (95.6 % of the
 * characters extractable), the old one kept 99.7 %.
 *
 * `-dAutoRotatePages=/None`: pdfwrite otherwise turns pages whose text runs sideways (measured: 8 pages of
 * govdocs_error_set_2_064034 came out landscape).
 *
 * `timeoutMs` bounds the call (see `ghostscriptLimitMs`): a rewrite that runs over it comes back with
 * `timedOut` and its route is dropped; the job goes on without it.
 */
export function rewriteWithGhostscript(
  input: string,
  output: string,
  options: { gray: boolean; legacy: boolean; signal: AbortSignal | undefined; timeoutMs: number },
): Promise<ToolOutcome> {
  const args = [
    ...(options.legacy ? ["-dNEWPDF=false"] : []),
    "-sDEVICE=pdfwrite",
    "-dCompatibilityLevel=1.7",
    "-dAutoRotatePages=/None",
    "-dDownsampleColorImages=false",
    "-dDownsampleGrayImages=false",
    "-dDownsampleMonoImages=false",
    "-dPassThroughJPEGImages=true",
    "-dPassThroughJPXImages=true",
    "-dAutoFilterColorImages=false",
    "-dAutoFilterGrayImages=false",
    "-dColorImageFilter=/FlateEncode",
    "-dGrayImageFilter=/FlateEncode",
    "-dDetectDuplicateImages=true",
    "-dCompressFonts=true",
    "-dSubsetFonts=true",
    ...(options.gray
      ? ["-sColorConversionStrategy=Gray", "-dProcessColorModel=/DeviceGray", "-dOverrideICC=true"]
      : []),
    // pdfwrite reads % in the output name as a page-number format.
    `-sOutputFile=${output.replaceAll("%", "%%")}`,
    "-f",
    input,
  ];
  return ghostscript(args, { signal: options.signal, timeoutMs: options.timeoutMs });
}
