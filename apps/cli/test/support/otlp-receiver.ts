import { type LocalServer, startLocalServer } from "./servers.js";

/** One span as an OTLP/HTTP JSON export carries it, with its process's service.name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: number;
  end: number;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  attributes: Record<string, string | number | boolean>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: KeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

const attributeValue = (value: AnyValue) =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? ""));
const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, attributeValue(value)]));

/**
 * An OTLP/HTTP receiver (the OTEL_EXPORTER_OTLP_PROTOCOL=http/json encoding, whose ids are hex) collecting
 * the traces the processes export: what a Collector would get.
 */
export async function startOtlpReceiver(): Promise<{ server: LocalServer; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = await startLocalServer((req, res, body) => {
    if (req.method === "POST" && req.url === "/v1/traces") {
      const request = JSON.parse(body) as ExportRequest;
      for (const resource of request.resourceSpans ?? []) {
        const service = String(attributesOf(resource.resource?.attributes)["service.name"] ?? "");
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              name: span.name,
              kind: span.kind ?? 0,
              start: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
              end: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
              status: span.status?.code ?? 0,
              attributes: attributesOf(span.attributes),
            });
          }
        }
      }
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  return { server, spans };
}

/** A trace as a tree of span names, each with its duration and service, children in start order. */
export function traceTree(spans: readonly ReceivedSpan[], traceId: string): string {
  const inTrace = spans.filter((span) => span.traceId === traceId);
  const ids = new Set(inTrace.map((span) => span.spanId));
  const lines: string[] = [];
  const visit = (span: ReceivedSpan, depth: number) => {
    const ms = (span.end - span.start).toFixed(1);
    const error = span.status === 2 ? " ERROR" : "";
    lines.push(`${"  ".repeat(depth)}${span.name}  ${ms} ms  [${span.service}]${error}`);
    for (const child of inTrace
      .filter((other) => other.parentSpanId === span.spanId)
      .sort((a, b) => a.start - b.start))
      visit(child, depth + 1);
  };
  for (const root of inTrace.filter((span) => !ids.has(span.parentSpanId)).sort((a, b) => a.start - b.start))
    visit(root, 0);
  return lines.join("\n");
}
