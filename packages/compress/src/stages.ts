/** One stage of a compress job, in milliseconds from the job's start. */
export interface StageTiming {
  name: string;
  startedMs: number;
  endedMs: number;
}

export type StageListener = (stage: StageTiming) => void;

/** Wraps a stage's promise so that `listener` hears when it ended; free when no one listens. */
export type StageTimer = <T>(name: string, work: Promise<T>) => Promise<T>;

/** A timer whose clock starts now: call it as each stage starts. */
export function stageTimer(listener: StageListener | undefined): StageTimer {
  if (listener === undefined) return (_name, work) => work;
  const origin = performance.now();
  const since = () => Math.round(performance.now() - origin);
  return (name, work) => {
    const startedMs = since();
    return work.finally(() => listener({ name, startedMs, endedMs: since() }));
  };
}
