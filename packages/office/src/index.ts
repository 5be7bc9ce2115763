export {
  OfficeConverter,
  type OfficeConverterOptions,
  type OfficeInput,
  type OfficeOutput,
  type OfficeTarget,
} from "./converter.js";
export { type OfficeExtension, type OfficeFamily, officeExtensions } from "./extensions.js";
export type { NetworkIsolation } from "./isolation.js";
export type { OfficeLogger } from "./logger.js";
