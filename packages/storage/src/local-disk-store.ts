import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, mkdir, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { assertSafeKey, BlobNotFoundError, type BlobStore } from "./blob-store.js";

/**
 * Objects as files under one directory. Writes go to a temporary name and are renamed into place,
 * so a reader never sees half an object and a crash leaves no partial file under a real key.
 */
export class LocalDiskStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    assertSafeKey(key);
    return join(this.root, key);
  }

  private async writeAtomically(
    key: string,
    write: (tmp: string) => Promise<void>,
  ): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID()}.partial`;
    try {
      await write(tmp);
      const { size } = await stat(tmp);
      await rename(tmp, target);
      return { size };
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  put(key: string, body: Readable | Uint8Array): Promise<{ size: number }> {
    return this.writeAtomically(key, async (tmp) => {
      if (body instanceof Uint8Array) await writeFile(tmp, body);
      else await pipeline(body, createWriteStream(tmp));
    });
  }

  putFile(key: string, path: string): Promise<{ size: number }> {
    return this.writeAtomically(key, (tmp) => copyFile(path, tmp));
  }

  async get(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    await this.statOrThrow(key);
    return createReadStream(path);
  }

  async getToFile(key: string, path: string): Promise<void> {
    await this.statOrThrow(key);
    await copyFile(this.pathOf(key), path);
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const info = await stat(this.pathOf(key));
      return { size: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  private async statOrThrow(key: string): Promise<{ size: number }> {
    const info = await this.stat(key);
    if (!info) throw new BlobNotFoundError(key);
    return info;
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }

  async check(): Promise<void> {
    const key = `health/${randomUUID()}`;
    await this.put(key, Readable.from([Buffer.from("ok")]));
    await this.delete(key);
  }
}
