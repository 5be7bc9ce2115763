// The Node.js entry: the same API as the core, with file paths and Node streams for inputs and
// downloads. Selected by the package's "node" export condition.
import { createWriteStream } from "node:fs";
import { mkdir, open, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import { type ClientOptions, Octavo as CoreOctavo, platformOption } from "./client.js";
import type { Platform } from "./platform.js";

export * from "./index.js";

/** A directory target: it ends with a separator or already is a directory. */
async function isDirectory(path: string): Promise<boolean> {
  if (/[\\/]$/.test(path)) return true;
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function writePath(path: string, body: ReadableStream<Uint8Array>, name: string): Promise<string> {
  let file = path;
  if (await isDirectory(path)) {
    await mkdir(path, { recursive: true });
    file = join(path, basename(name));
  }
  await pipeline(Readable.fromWeb(body as NodeWebReadableStream<Uint8Array>), createWriteStream(file));
  return file;
}

const nodePlatform: Platform = {
  async openPath(path) {
    // Fails here, with the path in the message, rather than during the upload.
    await (await open(path)).close();
    const { openAsBlob } = await import("node:fs");
    return openAsBlob(path);
  },
  readStream(value) {
    if (!(value instanceof Readable)) return undefined;
    return new Response(Readable.toWeb(value) as ReadableStream<Uint8Array>).blob();
  },
  write(target, body, name) {
    if (typeof target === "string") return writePath(target, body, name);
    if (target instanceof Writable) {
      return pipeline(Readable.fromWeb(body as NodeWebReadableStream<Uint8Array>), target).then(
        () => undefined,
      );
    }
    return undefined;
  },
};

/**
 * A client of the octavo API on Node.js: inputs may also be file paths and Node `Readable`s, and
 * outputs download to a path or a Node `Writable`.
 *
 * @example
 * import { Octavo } from "@octavo/client";
 *
 * const client = new Octavo();
 * const job = await client.run("compress", "big.pdf", { level: "extreme" });
 * await job.outputs[0].download("small.pdf");
 */
export class Octavo extends CoreOctavo {
  constructor(options: ClientOptions = {}) {
    super({ ...options, [platformOption]: nodePlatform });
  }
}
