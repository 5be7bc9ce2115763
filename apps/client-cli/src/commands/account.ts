import { createClient } from "../client.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import type { Reporter } from "../report.js";

/** `key: value` lines, nested objects as `limits.maxFileMb: 50`. */
export function flattenForText(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [`${prefix}: ${Array.isArray(value) ? value.join(", ") : String(value)}`];
  }
  return Object.entries(value).flatMap(([key, inner]) =>
    flattenForText(inner, prefix === "" ? key : `${prefix}.${key}`),
  );
}

/** The account's plan, the month's credits and the plan's limits. */
export async function showAccount(io: CliIo, reporter: Reporter): Promise<ExitCode> {
  const account = await createClient(io).account.get();
  if (reporter.json) reporter.jsonLine(account);
  else for (const line of flattenForText(account)) reporter.result(line);
  return ExitCode.ok;
}
