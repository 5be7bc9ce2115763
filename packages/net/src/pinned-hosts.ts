import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { untilAborted } from "./abort.js";
import type { AllowList } from "./allowlist.js";
import { blocked, errorCode, OutboundError, unreachable } from "./errors.js";
import { decideAddresses, literalAddress, type ResolvedAddress } from "./target.js";

/** Answers a host name with its addresses; injectable so tests never ask real DNS. */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), in the order the system gives. */
export const systemResolver: Resolver = (host) => lookup(host, { all: true, order: "verbatim" });

/** Only IP answers: a name here would make the socket resolve again, outside the policy. */
function ipAnswer(host: string, { address }: ResolvedAddress): ResolvedAddress {
  if (isIP(address) === 0)
    throw unreachable(`the resolver answered ${host} with "${address}", not an IP address`);
  return { address, family: isIP(address) };
}

/**
 * The DNS answers of one outbound operation, asked once per host and then reused: the check before a
 * request and the connection it opens see the same checked addresses, so a second DNS answer (DNS
 * rebinding) cannot swap the target.
 */
export class PinnedHosts {
  readonly #answers = new Map<string, Promise<readonly ResolvedAddress[]>>();
  readonly #allowlist: AllowList;
  readonly #resolve: Resolver;

  constructor(allowlist: AllowList, resolve: Resolver = systemResolver) {
    this.#allowlist = allowlist;
    this.#resolve = resolve;
  }

  /** The checked addresses to connect to, or OutboundError (blocked_url / unreachable_url). */
  async check(host: string, port: number, signal?: AbortSignal): Promise<readonly ResolvedAddress[]> {
    const literal = literalAddress(host);
    const addresses = literal ? [literal] : await untilAborted(this.#lookup(host), signal);
    const decision = decideAddresses(host, port, addresses, this.#allowlist);
    if (!decision.allowed) {
      throw addresses.length === 0 ? unreachable(decision.reason) : blocked(decision.reason);
    }
    return decision.addresses;
  }

  #lookup(host: string): Promise<readonly ResolvedAddress[]> {
    const key = host.toLowerCase();
    let answers = this.#answers.get(key);
    if (!answers) {
      answers = this.#resolve(host).then(
        (found) => found.map((answer) => ipAnswer(host, answer)),
        (error: unknown) => {
          if (error instanceof OutboundError) throw error;
          const code = errorCode(error) ?? "no answer";
          throw unreachable(
            `the host name ${host} could not be resolved (${code}); check the spelling`,
            error,
          );
        },
      );
      this.#answers.set(key, answers);
    }
    return answers;
  }
}
