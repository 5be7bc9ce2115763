/*
 * The OpenTelemetry SDK, started only when the standard OTEL_* variables ask for traces: without it the
 * API's calls are no-ops (no span is recorded, no context is propagated), so tracing off costs nothing
 * but those calls, and the SDK's modules are never loaded.
 */

interface RunningSdk {
  shutdown(): Promise<void>;
}

let running: RunningSdk | undefined;

/** Whether the environment asks for traces: an OTLP endpoint, and neither the SDK nor its trace exporter turned off. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the SDK when tracingWanted(): OTLP traces (OTEL_EXPORTER_OTLP_PROTOCOL, http/protobuf by default),
 * the sampler, the batch processor, the resource (OTEL_SERVICE_NAME, else `serviceName`) all as the
 * OTEL_* variables say, W3C trace context and baggage. Metrics and logs keep their own paths (Prometheus,
 * pino), so the SDK exports neither unless OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER says otherwise.
 * True when it started.
 */
export async function startTracing(serviceName: string): Promise<boolean> {
  if (running !== undefined || !tracingWanted()) return false;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  // No automatic instrumentation: octavo's spans are its own (the HTTP middleware, the job's steps).
  const sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
  running = sdk;
  return true;
}

/** Sends what is left and stops the SDK (a process's shutdown). */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown();
}
