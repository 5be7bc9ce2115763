import { Readable } from "node:stream";
import { tooLarge } from "./errors.js";

/**
 * Passes `source` through, but errors with too_large as soon as more than `maxBytes` arrived, so a
 * body that lies about (or omits) its length still cannot fill the disk. Other source errors go
 * through `mapError`; `onClose` runs once when the stream ends, fails or is destroyed by the reader.
 */
export function limitBody(
  source: Readable,
  maxBytes: number,
  mapError: (error: unknown) => unknown,
  onClose: () => void,
): Readable {
  let received = 0;
  const limited = new Readable({
    read() {
      source.resume();
    },
    destroy(error, callback) {
      source.destroy();
      onClose();
      callback(error);
    },
  });
  source.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) {
      limited.destroy(tooLarge(`the file is larger than the limit of ${maxBytes} bytes`));
    } else if (!limited.push(chunk)) {
      source.pause();
    }
  });
  source.on("end", () => limited.push(null));
  source.on("error", (error: unknown) => {
    const mapped = mapError(error);
    limited.destroy(mapped instanceof Error ? mapped : new Error(String(mapped)));
  });
  return limited;
}
