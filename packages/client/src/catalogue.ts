/**
 * The operations of the API as data, generated from its OpenAPI document: for tools built on the SDK
 * (the octavo-client CLI makes its subcommands and flags from it). Kept out of the main entry so the
 * core bundle stays small.
 *
 * @module
 */
export type { OperationInfo, OptionInfo } from "./catalogue-types.js";
export { operationCatalogue } from "./generated/catalogue.js";
