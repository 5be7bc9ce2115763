export { compress, compressionLevels, targetKBRange } from "./compress.js";
export { type ImageSetting, imageSettings, type LadderStep, targetLadder } from "./settings.js";
export type { StageListener, StageTiming } from "./stages.js";
export type {
  CompressContext,
  CompressInput,
  CompressionLevel,
  CompressionReport,
  CompressOptions,
  CompressResult,
} from "./types.js";
