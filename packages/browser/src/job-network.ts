import {
  type AllowList,
  type CheckedHost,
  checkHost,
  OutboundError,
  type ResolvedAddress,
  type Resolver,
  systemResolver,
} from "@octavo/net";

/** What the outbound policy said about one host:port during a job. */
export type Refusal = { host: string; port: number; error: OutboundError };

export interface JobNetworkOptions {
  allowlist: AllowList;
  resolve?: Resolver | undefined;
  maxBytes: number;
}

/**
 * The outbound policy of one render job, shared by request interception and the job's policy proxy.
 * Each host name is resolved once per job and the answer reused, so the check in the page and the
 * connection the proxy opens see the same addresses (no DNS rebinding inside a job). Also keeps the
 * job's byte budget and what was refused, for the job's result and logs.
 */
export class JobNetwork {
  readonly #allowlist: AllowList;
  readonly #resolve: Resolver;
  readonly #answers = new Map<string, Promise<readonly ResolvedAddress[]>>();
  readonly #maxBytes: number;
  #bytes = 0;
  /** Called once, when the page has loaded more than maxBytes; set by the job that uses this network. */
  onOverBudget: (() => void) | undefined;
  /** The latest refusal per host:port (a map, so a page firing thousands of requests stays small). */
  readonly #refusals = new Map<string, Refusal>();
  /** Every refusal, counted. */
  refused = 0;

  constructor(options: JobNetworkOptions) {
    this.#allowlist = options.allowlist;
    const resolve = options.resolve ?? systemResolver;
    this.#maxBytes = options.maxBytes;
    this.#resolve = (host) => {
      const key = host.toLowerCase();
      let answer = this.#answers.get(key);
      if (!answer) {
        answer = resolve(host);
        this.#answers.set(key, answer);
      }
      return answer;
    };
  }

  get allowlist(): AllowList {
    return this.#allowlist;
  }

  /** The memoised resolver, for checkUrl on the page address. */
  get resolve(): Resolver {
    return this.#resolve;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get overBudget(): boolean {
    return this.#bytes > this.#maxBytes;
  }

  /** The checked addresses for host:port, or OutboundError (recorded as a refusal). */
  async check(host: string, port: number): Promise<CheckedHost> {
    if (this.overBudget) {
      throw this.#refuse(host, port, new OutboundError("too_large", this.#budgetMessage()));
    }
    try {
      return await checkHost(host, port, { allowlist: this.#allowlist, resolve: this.#resolve });
    } catch (error) {
      if (error instanceof OutboundError) throw this.#refuse(host, port, error);
      throw error;
    }
  }

  /** Counts bytes received for the page; false once the job's budget is spent. */
  received(bytes: number): boolean {
    const wasOver = this.overBudget;
    this.#bytes += bytes;
    if (this.overBudget && !wasOver) this.onOverBudget?.();
    return !this.overBudget;
  }

  /** A checked target did not answer (connection refused, timed out): a refusal for messages. */
  unreachable(host: string, port: number, error: unknown): void {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    const why = code === "" ? "" : ` (${code})`;
    this.#refuse(
      host,
      port,
      new OutboundError("unreachable_url", `could not connect to ${host}:${port}${why}`),
    );
  }

  /** The refusal recorded for host:port, if any (the newest one). */
  refusalFor(host: string, port: number): Refusal | undefined {
    return this.#refusals.get(`${unbracketed(host)}:${port}`);
  }

  #budgetMessage(): string {
    return `the page loaded more than ${this.#maxBytes} bytes, the limit for one conversion`;
  }

  #refuse(host: string, port: number, error: OutboundError): OutboundError {
    const bare = unbracketed(host);
    this.#refusals.set(`${bare}:${port}`, { host: bare, port, error });
    this.refused += 1;
    return error;
  }
}

const unbracketed = (host: string): string => (host.startsWith("[") ? host.slice(1, -1) : host);
