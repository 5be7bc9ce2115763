import type { BlobStore } from "@octavo/storage";

/**
 * The stored inputs of one request, before its job exists. Every object written for the request is
 * tracked here, so a refused request can wait for its writes to settle and delete all of them:
 * nothing of a refused request is kept.
 */
export class InputSession {
  private readonly keys: string[] = [];
  readonly writes: Promise<unknown>[] = [];

  constructor(
    readonly store: BlobStore,
    readonly jobId: string,
  ) {}

  /** The storage key of the input at `position` (its place in the order the client sent inputs). */
  allocate(position: number): string {
    const key = `jobs/${this.jobId}/inputs/${position}`;
    this.keys.push(key);
    return key;
  }

  /** The storage key of the `index`th file sent in a named upload field (Sign PDF's `certificate`). */
  allocateNamed(field: string, index: number): string {
    const key = `jobs/${this.jobId}/inputs/${field}-${index}`;
    this.keys.push(key);
    return key;
  }

  /** Stores the job's sealed secret options (never in its row): deleted with the inputs. */
  async storeSecrets(body: Uint8Array): Promise<{ key: string; size: number }> {
    const key = `jobs/${this.jobId}/inputs/secret-options`;
    this.keys.push(key);
    const write = this.store.put(key, body);
    this.writes.push(write);
    await write;
    return { key, size: body.length };
  }

  async discard(): Promise<void> {
    await Promise.allSettled(this.writes);
    await Promise.all(this.keys.map((key) => this.store.delete(key)));
  }
}
