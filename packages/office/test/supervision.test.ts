import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { OfficeConverter, type OfficeConverterOptions } from "../src/index.js";
import { corpus, failureOf, pdfPages, recordingLogger, sofficePids, tempDir } from "./helpers.js";

const small = corpus("office/tika_testWORD_various.docx");
// ~6-8 s of LibreOffice work (255 pages): long enough to kill or time out mid-way.
const large = corpus("office/odftoolkit_excelfileformat.odt");

const open: OfficeConverter[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((converter) => converter.close()));
});

async function setUp(options: Partial<OfficeConverterOptions> = {}) {
  const root = await tempDir();
  const workDir = join(root, "work");
  const { logger, entries } = recordingLogger();
  const converter = new OfficeConverter({
    instances: 1,
    maxConversionsPerInstance: 100,
    conversionTimeoutMs: 60_000,
    workDir,
    logger,
    ...options,
  });
  open.push(converter);
  let outputs = 0;
  const outDir = async (): Promise<string> => {
    outputs += 1;
    const dir = join(root, `out-${outputs}`);
    await mkdir(dir);
    return dir;
  };
  const starts = (): number => entries.filter((entry) => entry.message === "LibreOffice started").length;
  return { converter, workDir, entries, outDir, starts };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe("warm, supervised LibreOffice", () => {
  it("starts on first use and reuses the warm instance", async () => {
    const { converter, workDir, outDir, starts } = await setUp();
    expect(await sofficePids(workDir)).toEqual([]);
    const first = await timed(async () => converter.convert(small, await outDir()));
    const pids = await sofficePids(workDir);
    expect(pids).toHaveLength(1);
    const second = await timed(async () => converter.convert(small, await outDir()));
    expect(second.value.name).toBe("tika_testWORD_various.pdf");
    expect(await pdfPages(second.value.path)).toBeGreaterThan(0);
    console.log(
      `first (cold start included) ${Math.round(first.ms)} ms, second (warm) ${Math.round(second.ms)} ms`,
    );
    expect(second.ms).toBeLessThan(first.ms / 3);
    expect(await sofficePids(workDir)).toEqual(pids);
    expect(starts()).toBe(1);
  });

  it("restarts an instance after maxConversionsPerInstance conversions", async () => {
    const { converter, workDir, outDir, starts, entries } = await setUp({ maxConversionsPerInstance: 2 });
    const seen = new Set<number>();
    for (let round = 0; round < 5; round += 1) {
      await converter.convert(small, await outDir());
      for (const pid of await sofficePids(workDir)) seen.add(pid);
    }
    // 1 and 2 on the first process, 3 and 4 on the second, 5 on the third.
    expect(starts()).toBe(3);
    expect(entries.filter((entry) => entry.message.startsWith("restarting LibreOffice"))).toHaveLength(2);
    expect(seen.size).toBeGreaterThanOrEqual(2);
    expect((await sofficePids(workDir)).length).toBeLessThanOrEqual(1);
  });

  // Killed while the document loads, and while it is laid out and exported.
  it.each([300, 3_000])("recovers when soffice.bin is killed %i ms into a conversion", async (delayMs) => {
    const { converter, workDir, outDir, entries, starts } = await setUp();
    await converter.convert(small, await outDir());
    const [victim] = await sofficePids(workDir);
    if (victim === undefined) throw new Error("no soffice.bin");
    const conversion = converter.convert(large, await outDir());
    await delay(delayMs); // the point in the conversion at which the crash is injected
    process.kill(victim, "SIGKILL");
    // The conversion lost its instance and was tried once more on a fresh one.
    const output = await conversion;
    expect(await pdfPages(output.path)).toBeGreaterThan(200);
    expect(entries.some((entry) => entry.message.startsWith("LibreOffice died during a conversion"))).toBe(
      true,
    );
    expect(starts()).toBe(2);
    const now = await sofficePids(workDir);
    expect(now).toHaveLength(1);
    expect(now).not.toContain(victim);
    await converter.convert(small, await outDir());
  });

  it("kills a conversion that outlives the timeout, fails it with `timeout`, and restarts", async () => {
    // The timeout leaves a small document's first conversion ample room on a loaded host, and the
    // endless one (thousands of pages of text, minutes of work) can never finish inside it.
    const { converter, workDir, outDir, starts } = await setUp({ conversionTimeoutMs: 8_000 });
    const endless = join(await tempDir(), "endless.txt");
    await writeFile(endless, "A line of text that Writer lays out, page after page.\n".repeat(400_000));
    await converter.convert(small, await outDir());
    const [before] = await sofficePids(workDir);
    const started = performance.now();
    const failure = await failureOf(
      converter.convert({ path: endless, name: "endless.txt" }, await outDir()),
    );
    const ms = performance.now() - started;
    expect(failure.code).toBe("timeout");
    expect(failure.message).toMatch(/endless\.txt took longer than 8 seconds/);
    expect(ms).toBeLessThan(14_000);
    // The old process group is gone (oosplash and soffice.bin), and the next job gets a fresh instance.
    await converter.convert(small, await outDir());
    const after = await sofficePids(workDir);
    expect(after).toHaveLength(1);
    expect(after).not.toContain(before);
    expect(starts()).toBe(2);
  });

  it("stops a conversion when the caller's signal aborts", async () => {
    const { converter, outDir, starts } = await setUp();
    await converter.convert(small, await outDir());
    const signal = AbortSignal.timeout(1_000);
    await expect(converter.convert(large, await outDir(), signal)).rejects.toThrow(/timed? ?out/i);
    await converter.convert(small, await outDir());
    expect(starts()).toBe(2);
  });

  it("runs at most `instances` LibreOffice processes; extra jobs wait their turn", async () => {
    const { converter, workDir, outDir, starts } = await setUp({ instances: 2 });
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, (await sofficePids(workDir)).length);
        await delay(100); // sampling interval, not a wait for a condition
      }
    })();
    const jobs = [small, large, small, corpus("office/pypptx_cht-chart-type.pptx"), small, small];
    const outputs = await Promise.all(jobs.map(async (job) => converter.convert(job, await outDir())));
    sampling = false;
    await sampler;
    expect(outputs).toHaveLength(6);
    expect(most).toBe(2);
    expect(starts()).toBe(2);
  });

  it("answers a password-protected document at once, without waiting for a prompt", async () => {
    const { converter, outDir } = await setUp();
    await converter.convert(small, await outDir());
    for (const file of ["office/tika_testODTEncrypted.odt", "office/tika_testWORD_protected_passtika.docx"]) {
      const started = performance.now();
      const failure = await failureOf(converter.convert(corpus(file), await outDir()));
      expect(failure.code).toBe("conversion_failed");
      expect(failure.message).toMatch(/is password-protected, and the service cannot open/);
      // A prompt would hold it until the 60 s conversion timeout; refusing takes a fraction of that
      // even on a busy machine.
      expect(performance.now() - started).toBeLessThan(20_000);
    }
  });

  it("close() ends every LibreOffice process; later jobs fail cleanly", async () => {
    const { converter, workDir, outDir } = await setUp({ instances: 2 });
    await Promise.all([converter.convert(small, await outDir()), converter.convert(small, await outDir())]);
    expect(await sofficePids(workDir)).toHaveLength(2);
    await converter.close();
    expect(await sofficePids(workDir)).toEqual([]);
    const failure = await failureOf(converter.convert(small, await outDir()));
    expect(failure.code).toBe("conversion_failed");
  });
});
