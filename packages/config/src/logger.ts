import { traceFields } from "@octavo/telemetry";
import { type Logger, pino } from "pino";

export type { Logger };

/**
 * JSON lines on stderr, with the active span's trace_id and span_id when traced. Known secret-bearing fields are censored wherever they appear, as a net
 * under the rule that secrets are never passed to the logger in the first place.
 */
export function createLogger(level: string, name: string): Logger {
  return pino(
    {
      name,
      level,
      // A line logged inside a traced span names it (trace_id, span_id), to find its trace.
      mixin: traceFields,
      redact: {
        paths: [
          "authorization",
          "*.authorization",
          "headers.authorization",
          "req.headers.authorization",
          "apiKey",
          "*.apiKey",
          "password",
          "*.password",
          "userPassword",
          "*.userPassword",
          "ownerPassword",
          "*.ownerPassword",
          "certificatePassword",
          "*.certificatePassword",
          "webhookSecret",
          "*.webhookSecret",
          "secretKey",
          "*.secretKey",
        ],
        censor: "[redacted]",
      },
    },
    pino.destination(2),
  );
}
