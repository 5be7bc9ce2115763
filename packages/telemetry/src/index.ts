export { startTracing, stopTracing, tracingWanted } from "./sdk.js";
export {
  type Attributes,
  activeSpan,
  contextFrom,
  failSpan,
  inSpan,
  pastSpan,
  type Span,
  SpanKind,
  type SpanOptions,
  type TraceCarrier,
  traceCarrier,
  traceFields,
} from "./spans.js";
