export { type FlattenOptions, flatten } from "./flatten.js";
export { type MetadataOptions, metadata } from "./metadata.js";
export { type PageNumbersOptions, pageNumbers } from "./page-numbers.js";
export { type StampPosition, type WatermarkOptions, watermark } from "./watermark.js";
