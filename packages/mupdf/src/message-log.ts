/** Keeps the first `limit` distinct messages and counts the rest. */
export class MessageLog {
  readonly #limit: number;
  readonly #messages = new Set<string>();
  #dropped = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(message: string): void {
    if (this.#messages.has(message)) return;
    if (this.#messages.size < this.#limit) this.#messages.add(message);
    else this.#dropped += 1;
  }

  /** Returns the collected messages and starts afresh. */
  drain(): string[] {
    const messages = [...this.#messages];
    if (this.#dropped > 0) messages.push(`… and ${this.#dropped} more messages`);
    this.#messages.clear();
    this.#dropped = 0;
    return messages;
  }
}
