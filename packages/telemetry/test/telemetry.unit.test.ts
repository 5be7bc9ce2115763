import { describe, expect, it } from "vitest";
import { contextFrom, inSpan, traceCarrier, traceFields, tracingWanted } from "../src/index.js";

describe("tracing, off unless asked", () => {
  it("is wanted only with an OTLP endpoint, and never when the SDK or its trace exporter is turned off", () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(
      true,
    );
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" })).toBe(
      false,
    );
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBe(false);
  });

  it("records and propagates nothing without the SDK: no carrier fields, no log fields", async () => {
    const inside = await inSpan("job.run", { "octavo.job.id": "j1" }, async () => ({
      carrier: traceCarrier(),
      fields: traceFields(),
    }));
    expect(inside).toEqual({ carrier: {}, fields: {} });
    // A message from a traced sender still parses; its context is simply not recorded into here.
    expect(
      contextFrom({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }),
    ).toBeDefined();
  });

  it("passes a failure through, whatever the span", async () => {
    await expect(
      inSpan("job.settle", {}, async () => {
        throw new Error("database gone");
      }),
    ).rejects.toThrow("database gone");
  });
});
