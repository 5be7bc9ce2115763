import { printJson, UsageError } from "../output.js";
import type { Runtime } from "../runtime.js";

export async function keysCommand(
  runtime: Runtime,
  args: string[],
  flags: Record<string, string | undefined>,
): Promise<void> {
  const [action, id] = args;
  if (!id)
    throw new UsageError(
      "keys create ACCOUNT_ID [--label L] [--test] | keys list ACCOUNT_ID | keys revoke KEY_ID",
    );
  switch (action) {
    case "create": {
      const mode = flags.test === undefined ? "live" : "test";
      const key = await runtime.accounts.createKey(id, flags.label ?? null, mode);
      printJson({
        keyId: key.id,
        accountId: id,
        apiKey: key.apiKey,
        prefix: key.prefix,
        mode,
        note: "Shown once: only a hash is stored.",
      });
      return;
    }
    case "list":
      printJson(await runtime.accounts.listKeys(id));
      return;
    case "revoke":
      await runtime.accounts.revokeKey(id);
      printJson({ keyId: id, revoked: true });
      return;
    default:
      throw new UsageError("keys create | list | revoke");
  }
}
