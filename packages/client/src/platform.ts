/**
 * What the SDK needs from its runtime beyond fetch, FormData, Blob and Web Crypto: files on disk and
 * the runtime's own stream types. The core runs without one (Deno, Bun, edge runtimes, browsers); the
 * Node entry supplies it.
 */
export interface Platform {
  /** A file on disk as a Blob, read lazily where the runtime can. */
  openPath(path: string): Promise<Blob>;
  /** The bytes of a runtime-specific readable stream, or undefined when `value` is not one. */
  readStream(value: unknown): Promise<Blob> | undefined;
  /**
   * Writes a download to a path (a directory gets the file's `name`) or to a runtime-specific
   * writable stream; resolves with the path written, or undefined for a stream. Undefined when
   * `target` is neither.
   */
  write(
    target: unknown,
    body: ReadableStream<Uint8Array>,
    name: string,
  ): Promise<string | undefined> | undefined;
}

/** Where the runtime has no file system: paths are refused with a message saying what to pass instead. */
export const webPlatform: Platform = {
  openPath(path) {
    return Promise.reject(
      new TypeError(
        `Cannot read the path "${path}" here: file paths need Node.js. Pass the bytes, a Blob or a ReadableStream.`,
      ),
    );
  },
  readStream: () => undefined,
  write: () => undefined,
};
