import type { BlobStore } from "@octavo/storage";
import type { Request } from "express";
import type multer from "multer";

/**
 * A multer storage engine that streams each uploaded file straight into the blob store, so an
 * upload never sits in the API's memory. `keyFor` names the object (the job's input keys).
 */
export class BlobStorageEngine implements multer.StorageEngine {
  constructor(
    private readonly store: BlobStore,
    private readonly keyFor: (req: Request, file: Express.Multer.File) => string,
  ) {}

  _handleFile(
    req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    let key: string;
    try {
      key = this.keyFor(req, file);
    } catch (error) {
      callback(error);
      return;
    }
    this.store.put(key, file.stream).then(
      ({ size }) => callback(null, { path: key, size }),
      (error: unknown) => callback(error),
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    this.store.delete(file.path).then(
      () => callback(null),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
