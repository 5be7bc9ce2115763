import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { BlobNotFoundError, createBlobStore } from "../src/index.js";

const root = () => mkdtempSync(join(tmpdir(), "octavo-store-"));

describe("LocalDiskStore", () => {
  it("streams objects in and out, copies files both ways, and deletes idempotently", async () => {
    const dir = root();
    const store = createBlobStore(`file://${dir}`);
    expect(
      await store.put("jobs/a/inputs/0", Readable.from([Buffer.from("hello "), Buffer.from("world")])),
    ).toEqual({ size: 11 });
    expect(await text(await store.get("jobs/a/inputs/0"))).toBe("hello world");
    expect(await store.stat("jobs/a/inputs/0")).toEqual({ size: 11 });

    const local = join(dir, "local.bin");
    writeFileSync(local, "file body");
    await store.putFile("jobs/a/outputs/0", local);
    await store.getToFile("jobs/a/outputs/0", join(dir, "copy.bin"));
    expect(readFileSync(join(dir, "copy.bin"), "utf8")).toBe("file body");

    await store.delete("jobs/a/inputs/0");
    await store.delete("jobs/a/inputs/0");
    expect(await store.stat("jobs/a/inputs/0")).toBeUndefined();
    await expect(store.get("jobs/a/inputs/0")).rejects.toBeInstanceOf(BlobNotFoundError);
    await store.check();
  });

  it("leaves no partial object when the incoming stream fails", async () => {
    const dir = root();
    const store = createBlobStore(`file://${dir}`);
    const failing = new Readable({
      read() {
        this.push(Buffer.from("partial"));
        this.destroy(new Error("client went away"));
      },
    });
    await expect(store.put("jobs/b/inputs/0", failing)).rejects.toThrow("client went away");
    expect(await store.stat("jobs/b/inputs/0")).toBeUndefined();
    expect(readdirSync(join(dir, "jobs", "b", "inputs"))).toEqual([]);
  });

  it("refuses keys that could leave its directory", async () => {
    const store = createBlobStore(`file://${root()}`);
    for (const key of ["../etc/passwd", "/abs", "jobs/../../x", "a//b", ""]) {
      await expect(store.put(key, Buffer.from("x")), key).rejects.toThrow(/unsafe storage key/);
    }
  });
});
