import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

export { type Attributes, type Span, SpanKind } from "@opentelemetry/api";

/** octavo's tracer; a no-op until the SDK is started (startTracing). */
const tracer = trace.getTracer("octavo");

/** What a queue message carries of its sender's trace: W3C `traceparent` (and `tracestate`). */
export type TraceCarrier = Record<string, string>;

export interface SpanOptions {
  kind?: SpanKind;
  /** The parent's context; by default the active one. */
  parent?: Context;
  /** When it began (ms since the epoch), if before now. */
  startTime?: number;
}

/**
 * Runs `work` in a span, a child of the active one (or of `options.parent`), active while it runs, so the
 * spans and messages it starts belong to it. A throw marks the span an error, with the exception.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: SpanOptions = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    {
      attributes,
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error instanceof Error ? error.message : String(error));
      if (error instanceof Error) span.recordException(error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span of something already over, from `start` to `end` (ms since the epoch): a queue wait, a program a sandbox ran. */
export function pastSpan(
  name: string,
  attributes: Attributes,
  times: { start: number; end: number },
  options: { parent?: Context; error?: string } = {},
): void {
  const span = tracer.startSpan(
    name,
    { attributes, startTime: times.start },
    options.parent ?? context.active(),
  );
  if (options.error !== undefined) failSpan(span, options.error);
  span.end(times.end);
}

/** Marks the span an error: a failed job, a refused webhook delivery. */
export function failSpan(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** The active span, to add what is learnt as it runs (a status code, an engine's name); a no-op one when none. */
export function activeSpan(): Span {
  return trace.getActiveSpan() ?? trace.wrapSpanContext({ traceId: "", spanId: "", traceFlags: 0 });
}

/** The active trace context as message fields; empty when nothing is traced. */
export function traceCarrier(): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The context a message or request carried (a `traceparent` field or header); the root context when none. */
export function contextFrom(carrier: Readonly<Record<string, unknown>> | undefined): Context {
  if (carrier === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, {
    get: (from, key) => {
      const value = from[key];
      return typeof value === "string" || Array.isArray(value) ? (value as string | string[]) : undefined;
    },
    keys: (from) => Object.keys(from),
  });
}

/** `trace_id` and `span_id` of the active span, for a log line; nothing when none is recording. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
