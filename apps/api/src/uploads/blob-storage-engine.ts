import { createHash } from "node:crypto";
import { PassThrough } from "node:stream";
import type { BlobStore } from "@octavo/storage";
import type { Request } from "express";
import type multer from "multer";

/** What the engine records about each stored upload, besides multer's own fields. */
export interface UploadRecord {
  key: string;
  /** Position among all inputs (files and URLs) in the order the client sent them. */
  position: number;
  sha256: string;
}

export interface UploadHooks {
  /** Names the object and its position; may throw to refuse the file. */
  place(req: Request, file: Express.Multer.File): { key: string; position: number };
  /** The plan's per-file size. */
  maxFileBytes: number;
  /** Called the moment a file passes the size limit, before the rest is read. */
  onLimit(req: Request, file: Express.Multer.File): void;
  /** Records every write started, so a failed request can wait for them and clean up. */
  track(write: Promise<unknown>): void;
}

/**
 * A multer storage engine that streams each uploaded file straight into the blob store, hashing it
 * on the way (for Idempotency-Key fingerprints), so an upload never sits in the API's memory.
 */
export class BlobStorageEngine implements multer.StorageEngine {
  readonly records = new Map<string, UploadRecord>();

  constructor(
    private readonly store: BlobStore,
    private readonly hooks: UploadHooks,
  ) {}

  _handleFile(
    req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    let placed: { key: string; position: number };
    try {
      placed = this.hooks.place(req, file);
    } catch (error) {
      file.stream.resume();
      callback(error);
      return;
    }
    const hash = createHash("sha256");
    const body = new PassThrough();
    let size = 0;
    let overLimit = false;
    file.stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      hash.update(chunk);
      if (size > this.hooks.maxFileBytes && !overLimit) {
        // Over the plan's size: stop here. multer is deliberately left waiting (its callback is not
        // called), because on an error it would read and discard the rest of the upload; the request
        // is answered 413 at once and its connection closed instead.
        overLimit = true;
        file.stream.unpipe(body);
        body.destroy(new Error("file over the plan's size"));
        this.hooks.onLimit(req, file);
      }
    });
    // A part cut off (the body ended before its closing boundary, or the client went away) errors the
    // file stream; pipe() does not pass that on, and the write would wait for the rest forever.
    file.stream.on("error", (error: Error) => body.destroy(error));
    // The store reads `body` only once it is ready to write (a local store makes its folder first); an
    // error before then must reach the store's write, not be thrown with no listener.
    body.on("error", () => undefined);
    file.stream.pipe(body);
    const write = this.store.put(placed.key, body);
    this.hooks.track(write);
    write.then(
      ({ size }) => {
        this.records.set(placed.key, {
          key: placed.key,
          position: placed.position,
          sha256: hash.digest("hex"),
        });
        callback(null, { path: placed.key, size });
      },
      (error: unknown) => {
        if (!overLimit) callback(error);
      },
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    this.store.delete(file.path).then(
      () => callback(null),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
