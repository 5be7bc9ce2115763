import { openSecret, sealSecret } from "./secrets.js";

/*
 * Options that are secrets (a catalogue entry's secretOptions: Sign PDF's certificate password) never go
 * into the job's row. The API seals them with the server's key into an object stored beside the job's
 * inputs, under this field name, and deleted with them; the worker opens it and hands them to the engine.
 */

/** The job file (role input) that holds the sealed secret options. */
export const secretOptionsField = "secret-options";

/** The options without the secret ones, and the secret ones (undefined when none was given). */
export function splitSecretOptions(
  options: Record<string, unknown>,
  names: readonly string[] | undefined,
): { kept: Record<string, unknown>; secrets: Record<string, unknown> | undefined } {
  const kept = { ...options };
  const secrets: Record<string, unknown> = {};
  for (const name of names ?? []) {
    if (!(name in kept)) continue;
    secrets[name] = kept[name];
    delete kept[name];
  }
  return { kept, secrets: Object.keys(secrets).length === 0 ? undefined : secrets };
}

export function sealSecretOptions(secretKey: string, secrets: Record<string, unknown>): Buffer {
  return Buffer.from(sealSecret(secretKey, JSON.stringify(secrets)));
}

export function openSecretOptions(secretKey: string, sealed: Buffer): Record<string, unknown> {
  return JSON.parse(openSecret(secretKey, sealed.toString("utf8"))) as Record<string, unknown>;
}
