/** Work caps for hostile or absurd files. */
export const limits = {
  /** More pages than this is treated as a damaged or hostile page tree (e.g. /Count 9999999999). */
  maxPages: 20_000,
  /** Pages whose text is counted when comparing outputs; larger files are sampled evenly. */
  textSamplePages: 60,
  /** Bookmarks copied per input in a merge; a deeper or longer outline is cut there. */
  maxOutlineItems: 50_000,
} as const;
