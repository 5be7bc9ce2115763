export { type RedactionReport, type RedactOptions, redact } from "./redact.js";
export type { PresetName } from "./rules.js";
