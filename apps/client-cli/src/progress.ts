import { MultiBar, Presets, type SingleBar } from "cli-progress";
import { type OutputStream, writeLine } from "./io.js";

/** The progress of one job, as its bar shows it: the upload in bytes, then the job's 0–100 %. */
export interface JobProgress {
  uploading(sent: number, total: number): void;
  running(status: string, progress: number): void;
  /** The job ended (or the request failed): its bar is final. */
  finish(status: string): void;
}

/** Bars on stderr while jobs upload and run; nothing at all when disabled. */
export interface ProgressDisplay {
  /** A bar for one job (in a batch, shown only while it runs). */
  track(label: string): JobProgress;
  /** A line on stderr, above the bars while they are drawn. */
  log(line: string): void;
  /** Draws the final state and gives the terminal back. */
  stop(): void;
}

const silent: JobProgress = { uploading() {}, running() {}, finish() {} };

/** Whether bars are drawn: stderr is a terminal and the output is for people. */
export function progressEnabled(stderr: OutputStream, settings: { json: boolean; quiet: boolean }): boolean {
  return stderr.isTTY === true && !settings.json && !settings.quiet;
}

/** "1.2 MB" */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function fitLabel(label: string, width: number): string {
  return label.length <= width ? label.padEnd(width) : `…${label.slice(label.length - width + 1)}`;
}

/**
 * One bar per job; with several jobs, a first bar counts the jobs finished and each job's bar is removed
 * when it ends, so at most `--parallel` job bars are on screen however long the batch.
 */
export function createProgressDisplay(stream: OutputStream, enabled: boolean, jobs: number): ProgressDisplay {
  if (!enabled) return { track: () => silent, log: (line) => writeLine(stream, line), stop() {} };
  const bars = new MultiBar(
    {
      stream,
      format: "{label} {bar} {percentage}% {detail}",
      barsize: 30,
      hideCursor: false,
      clearOnComplete: false,
      autopadding: true,
    },
    Presets.shades_classic,
  );
  const batch = jobs > 1;
  const overall: SingleBar | undefined = batch
    ? bars.create(jobs, 0, { label: fitLabel("all jobs", 24), detail: `0/${jobs} jobs` })
    : undefined;
  let finished = 0;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    // The lines logged since the last redraw are written by a redraw, which stop() does not do.
    bars.update();
    bars.stop();
  };
  // Interrupted: give the terminal back (the bars turn line wrapping off while drawn), then die of the
  // signal as if nothing had caught it.
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    process.kill(process.pid, signal);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    track(label) {
      const bar = bars.create(1, 0, { label: fitLabel(label, 24), detail: "starting" });
      let ended = false;
      return {
        uploading(sent, total) {
          if (ended) return;
          bar.setTotal(Math.max(total, 1));
          bar.update(sent, { detail: `uploading ${formatBytes(sent)} / ${formatBytes(total)}` });
        },
        running(status, progress) {
          if (ended) return;
          bar.setTotal(100);
          bar.update(Math.round(progress * 100), { detail: status });
        },
        finish(status) {
          if (ended) return;
          ended = true;
          if (status === "done") bar.update(bar.getTotal(), { detail: status });
          else bar.update({ detail: status });
          finished += 1;
          overall?.update(finished, { detail: `${finished}/${jobs} jobs` });
          if (batch) bars.remove(bar);
        },
      };
    },
    log(line) {
      bars.log(`${line}\n`);
    },
    stop,
  };
}
