/** Work caps for hostile or absurd files. */
export const limits = {
  /** More pages than this is treated as a damaged or hostile page tree (e.g. /Count 9999999999). */
  maxPages: 20_000,
  /**
   * More objects than this is refused before any engine reads the file. qpdf holds about 400 bytes an
   * object, so a million take 400 MB of a sandbox's 2 GB before any page is read; the densest file of
   * the corpus has 25,688 objects on one page, the largest 13,689 over 104 pages.
   */
  maxObjects: 1_000_000,
  /**
   * An image that decodes to more bytes than this (width × height × bits per pixel) is refused: every
   * engine that renders it would hold it whole, beyond half a sandbox's default 2 GB. The largest
   * image of the corpus, a 35,000 × 35,000 one-bit scan, decodes to 153 MB.
   */
  maxImageBytes: 1024 ** 3,
  /**
   * A stream (other than an image) that inflates beyond this is refused as a decompression bomb. Content
   * streams of the largest vector maps run to tens of megabytes; the corpus's largest inflated stream is
   * far below this.
   */
  maxInflatedStreamBytes: 512 * 1024 ** 2,
  /** Pages whose text is counted when comparing outputs; larger files are sampled evenly. */
  textSamplePages: 60,
  /** Bookmarks copied per input in a merge; a deeper or longer outline is cut there. */
  maxOutlineItems: 50_000,
} as const;
