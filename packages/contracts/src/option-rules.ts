import type { OperationId } from "./operation-ids.js";
import { generateOptionsProblem } from "./options/generate.js";
import { splitOptionsProblem } from "./options/pages.js";
import { redactOptionsProblem } from "./options/redact.js";

/**
 * What an operation's options must satisfy beyond their JSON Schema: a rule between options ("at least
 * one of"), or a value the schema cannot judge (a regular expression RE2 reads). Each runs on options the
 * schema accepted, and gives the refusal's detail in the form of option-messages.ts ("<option>: ..."),
 * or undefined.
 */
const optionRules: {
  readonly [Id in OperationId]?: (options: Record<string, unknown>) => string | undefined;
} = {
  generate: generateOptionsProblem,
  redact: redactOptionsProblem,
  split: splitOptionsProblem,
};

/** The detail of a 400 invalid_options for options the schema accepted, or undefined when they are valid. */
export function optionsRuleProblem(id: OperationId, options: Record<string, unknown>): string | undefined {
  return optionRules[id]?.(options);
}
