import { type CatalogueEntry, catalogue } from "./catalogue.js";
import { type OperationId, operationIds } from "./operation-ids.js";

export type { FileRule } from "./catalogue.js";

/** A catalogue entry with its id: what the API, the document and the SDK read of an operation. */
export interface OperationSpec extends CatalogueEntry {
  /** Also the name of the operation's queue. */
  readonly id: OperationId;
}

/** Every operation, in the catalogue's order. */
export const operations: readonly OperationSpec[] = operationIds.map((id) => ({ id, ...catalogue[id] }));

const byId = new Map(operations.map((spec) => [spec.id, spec]));
const byPath = new Map(operations.map((spec) => [spec.path, spec]));

export function getOperation(id: OperationId): OperationSpec {
  const spec = byId.get(id);
  // Unreachable for a well-typed id; a clear throw beats undefined for callers passing casts.
  if (spec === undefined) throw new Error(`unknown operation: ${String(id)}`);
  return spec;
}

/** The operation POSTed to `path`; one trailing slash is tolerated, as Express's routing does. */
export function findOperationByPath(path: string): OperationSpec | undefined {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return byPath.get(trimmed);
}
