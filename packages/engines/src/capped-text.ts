/** Collects output up to a byte limit and counts what it dropped, so a chatty engine cannot fill memory. */
export class CappedText {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  add(chunk: Buffer): void {
    const room = this.#limit - this.#kept;
    if (room <= 0) {
      this.#dropped += chunk.length;
      return;
    }
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(kept);
    this.#kept += kept.length;
    this.#dropped += chunk.length - kept.length;
  }

  text(): string {
    const text = Buffer.concat(this.#chunks).toString("utf8");
    return this.#dropped === 0 ? text : `${text}\n[… ${this.#dropped} more bytes dropped]`;
  }
}
