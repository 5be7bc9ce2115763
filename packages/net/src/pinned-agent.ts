import { isIP } from "node:net";
import { Agent, buildConnector } from "undici";
import type { PinnedHosts } from "./pinned-hosts.js";
import type { ResolvedAddress } from "./target.js";

type ConnectOptions = buildConnector.Options;
type Connected = Parameters<buildConnector.Callback>;

/**
 * An undici Agent whose every connection goes to an address the policy checked: the host name is
 * answered from `pins` (asked once per operation), then the socket is opened to that IP literal. TLS
 * still sends SNI and verifies the certificate against the host name, never against the IP.
 */
export function pinnedAgent(pins: PinnedHosts, connectTimeoutMs: number): Agent {
  // HTTP/1.1 only: one request per connection is all the callers need, and it keeps timeouts simple.
  const base = buildConnector({ timeout: connectTimeoutMs, allowH2: false });

  const connectTo = (
    options: ConnectOptions,
    addresses: readonly ResolvedAddress[],
    index: number,
    callback: buildConnector.Callback,
    lastError?: Error,
  ): void => {
    const candidate = addresses[index];
    if (!candidate) {
      callback(lastError ?? new Error(`no address to connect to for ${options.hostname}`), null);
      return;
    }
    const named = options.protocol === "https:" && isIP(options.hostname) === 0;
    const pinned: ConnectOptions = named
      ? { ...options, hostname: candidate.address, servername: options.hostname }
      : { ...options, hostname: candidate.address };
    // Like a system connect, try the next checked address when one cannot be reached (e.g. no IPv6 route).
    base(pinned, (...result: Connected) => {
      if (result[0] === null) callback(...result);
      else connectTo(options, addresses, index + 1, callback, result[0]);
    });
  };

  return new Agent({
    allowH2: false,
    connect: (options, callback) => {
      const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
      pins.check(options.hostname, port).then(
        (addresses) => connectTo(options, addresses, 0, callback),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
      );
    },
  });
}
