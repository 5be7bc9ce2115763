/** Data goes to stdout as JSON (scripts parse it); everything meant for people goes to stderr. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}
