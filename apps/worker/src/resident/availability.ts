import { catalogue, type OperationId, operationIds, perOperation } from "@octavo/contracts";
import { findProgram } from "@octavo/engines";

/** Whether a program can be started: a name looked up on PATH, or an absolute path. */
export function programInstalled(program: string): boolean {
  return findProgram(program) !== undefined;
}

/** The programs each operation starts, from its catalogue entry (see CatalogueEntry.programs). */
export const operationPrograms = perOperation<readonly string[]>((id) => catalogue[id].programs);

/**
 * The operations whose programs are all installed on this machine. The API answers 503 unavailable
 * for the others, instead of accepting jobs no worker could run.
 */
export function installedOperations(): OperationId[] {
  return operationIds.filter((operation) => operationPrograms[operation].every(programInstalled));
}
