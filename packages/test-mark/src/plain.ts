import { testModeStamp } from "./stamp.js";

/** Plain text: a first line saying so, and a blank line. */
export function markText(text: string): string {
  return `${testModeStamp}\n\n${text}`;
}

/** Markdown: a first line (a quote) saying so, and a blank line. */
export function markMarkdown(text: string): string {
  return `> ${testModeStamp}\n\n${text}`;
}

/**
 * A JSON document gets `"livemode": false` as its first member, as the Job resource of a test job has.
 * Every JSON output is an object (the catalogue's document schemas declare the member).
 */
export function markJson(text: string, name: string): string {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${name} is not a JSON object`);
  }
  const indent = /^\{\r?\n([ \t]+)/.exec(text)?.[1] ?? "";
  const marked = JSON.stringify({ livemode: false, ...withoutLivemode(value) }, null, indent);
  return text.endsWith("\n") ? `${marked}\n` : marked;
}

function withoutLivemode(value: object): object {
  const { livemode: _, ...rest } = value as { livemode?: unknown };
  return rest;
}
