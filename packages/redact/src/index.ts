export { type RedactionReport, type RedactOptions, type RedactResult, redact } from "./redact.js";
export type { PresetName } from "./rules.js";
