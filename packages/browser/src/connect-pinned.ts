import { connect, type Socket } from "node:net";
import type { ResolvedAddress } from "@octavo/net";

const connectTimeoutMs = 10_000;

/**
 * Opens a TCP connection to the first of the checked addresses that answers, and to nothing else:
 * the proxy never hands a host name to the system, so a second DNS answer cannot change the target.
 */
export function connectPinned(addresses: readonly ResolvedAddress[], port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const attempt = (index: number, lastError: Error | undefined): void => {
      const candidate = addresses[index];
      if (!candidate) {
        reject(lastError ?? new Error("no address to connect to"));
        return;
      }
      const socket = connect({ host: candidate.address, port, timeout: connectTimeoutMs });
      const fail = (error: Error): void => {
        socket.destroy();
        attempt(index + 1, error);
      };
      socket.once("timeout", () =>
        fail(Object.assign(new Error("connect timed out"), { code: "ETIMEDOUT" })),
      );
      socket.once("error", fail);
      socket.once("connect", () => {
        socket.removeListener("error", fail);
        socket.setTimeout(0);
        resolve(socket);
      });
    };
    attempt(0, undefined);
  });
}
