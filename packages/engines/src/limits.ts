import { inputLimits } from "@octavo/contracts/limits";

/** Work caps for hostile or absurd files; the input limits clients are told of come from the contract. */
export const limits = {
  /** More pages than this is treated as a damaged or hostile page tree (e.g. /Count 9999999999). */
  maxPages: inputLimits.maxPages,
  maxObjects: inputLimits.maxObjects,
  maxImageBytes: inputLimits.maxImageBytes,
  maxInflatedStreamBytes: inputLimits.maxInflatedStreamBytes,
  /** Pages whose text is counted when comparing outputs; larger files are sampled evenly. */
  textSamplePages: 60,
  /** Bookmarks copied per input in a merge; a deeper or longer outline is cut there. */
  maxOutlineItems: 50_000,
} as const;
