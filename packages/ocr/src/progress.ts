import { open } from "node:fs/promises";

/**
 * Follows the file that `python/octavo_progress.py` appends to while OCRmyPDF runs, one line per update:
 * "<phase>\t<done>\t<total>". Phases seen with OCRmyPDF 14: "Scanning contents" (one step per page), then
 * "OCR" (two steps per page: recognised, then grafted into the output). run() only returns when the process
 * ends, so a file is the channel.
 */
export class ProgressFollower {
  private offset = 0;
  private pending = "";
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly report: (fraction: number) => void,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.reading = this.reading.then(() => this.poll());
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops polling after reading what the process wrote last. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.reading;
    await this.poll();
  }

  private async poll(): Promise<void> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path, "r");
    } catch {
      return; // Not created yet: OCRmyPDF is still starting.
    }
    try {
      for (;;) {
        const buffer = Buffer.alloc(16 * 1024);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        this.pending += buffer.subarray(0, bytesRead).toString("utf8");
      }
    } finally {
      await handle.close();
    }
    const lines = this.pending.split("\n");
    this.pending = lines.pop() ?? "";
    for (const line of lines) this.onLine(line);
  }

  private onLine(line: string): void {
    const [phase = "", doneText = "", totalText = ""] = line.split("\t");
    const done = Number(doneText);
    const total = Number(totalText);
    if (!Number.isFinite(done) || !Number.isFinite(total) || total <= 0) return;
    const share = Math.min(1, Math.max(0, done / total));
    const fraction = phaseFraction(phase, share);
    if (fraction === undefined || fraction <= this.last) return;
    this.last = fraction;
    this.report(fraction);
  }
}

/** Maps a phase's own 0..1 onto the job: scanning 0–5 %, OCR 5–95 %, the rest after the process ends. */
function phaseFraction(phase: string, share: number): number | undefined {
  if (phase === "Scanning contents") return 0.05 * share;
  if (phase === "OCR" || phase === "Image processing") return 0.05 + 0.9 * share;
  return undefined;
}
