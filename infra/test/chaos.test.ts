import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support.js";

/**
 * `npm run test:chaos` takes Docker and ten minutes; its schedule and its invariants are plain
 * functions, checked here on made-up fleet states: each invariant passes on a sound state and fails on
 * the defect it is there to catch, so none of them is a check that cannot fail.
 */

type Random = () => number;
interface Fault {
  name: string;
  track: string;
  atMs: number;
}
interface Verdict {
  name: string;
  pass: boolean;
  detail: string;
}
interface Job {
  id: string;
  operation: string;
  status: string;
  error_code: string | null;
  error_message?: string | null;
  credits: number;
}
interface State {
  jobs: Job[];
  charges: { job_id: string; count: number; amount: number }[];
  deliveries: { job_id: string; status: string; attempts: number; attempt_times: string[] | null }[];
}
interface Submission {
  n: number;
  kind: string;
  id?: string;
  secondId?: string;
  error?: string;
}
interface Answer {
  method: string;
  path: string;
  status: number;
  retryAfter?: string | null;
  lost?: string;
}
interface Received {
  webhookId?: string;
  jobId: string;
  status: string;
  answered: number;
  signed: boolean;
}
interface Window {
  name: string;
  start: number;
  end: number;
}

const faults = (await import(join(ROOT, "infra/fleet/chaos/faults.mjs"))) as {
  seededRandom(seed: number): Random;
  faultCatalogue(): Fault[];
  schedule(random: Random, startMs: number, endMs: number): Fault[][];
};
const invariants = (await import(join(ROOT, "infra/fleet/chaos/invariants.mjs"))) as {
  everyJobEnded(state: State, submissions: Submission[]): Verdict;
  acceptedExactlyOnce(state: State, submissions: Submission[]): Verdict;
  chargesExact(state: State, reserved: { plan: string; reserved: number }[]): Verdict;
  webhooksDelivered(state: State, received: Received[], windows: Window[]): Verdict;
  refusalsClean(answers: Answer[]): Verdict;
  memoryFlat(before: Record<string, number>, after: Record<string, number>, judged: string[]): Verdict;
};

const job = (id: string, status: string, error_code: string | null = null): Job => ({
  id,
  operation: "rotate",
  status,
  error_code,
  credits: 1,
});
const sound: State = {
  jobs: [job("a", "done"), job("b", "failed", "canceled")],
  charges: [{ job_id: "a", count: 1, amount: 1 }],
  deliveries: [],
};
const light: Submission = { n: 0, kind: "light", id: "a" };
const canceled: Submission = { n: 1, kind: "cancel", id: "b" };
const submissions = [light, canceled];

describe("the chaos run's schedule", () => {
  it("draws every fault once, inside the window, the same for the same seed", () => {
    const plan = (seed: number) =>
      faults
        .schedule(faults.seededRandom(seed), 75_000, 525_000)
        .flat()
        .map(({ name, atMs }) => [name, atMs] as const);
    const first = plan(7);
    expect(first).toEqual(plan(7));
    expect(first).not.toEqual(plan(8));
    expect(first.map(([name]) => name).sort()).toEqual(
      faults
        .faultCatalogue()
        .map(({ name }) => name)
        .sort(),
    );
    for (const [, atMs] of first) expect(atMs >= 75_000 && atMs < 525_000).toBe(true);
    const names = first.map(([name]) => name);
    for (const workerClass of ["pdf", "office", "heavy", "webhooks", "pipeline"])
      expect(names).toContain(`kill worker-${workerClass}`);
  });
});

describe("the chaos run's invariants", () => {
  it("every job ended: a job still running, or one failed by anything but its cancel, fails it", () => {
    expect(invariants.everyJobEnded(sound, submissions).pass).toBe(true);
    const stuck = { ...sound, jobs: [...sound.jobs, job("c", "active")] };
    expect(invariants.everyJobEnded(stuck, submissions).pass).toBe(false);
    const faulted = {
      ...sound,
      jobs: [job("a", "failed", "internal_error"), job("b", "failed", "canceled")],
    };
    expect(invariants.everyJobEnded(faulted, submissions).detail).toMatch(
      /a \(rotate\) failed internal_error/,
    );
    // A cancel is explained only for a job the run canceled.
    expect(invariants.everyJobEnded(sound, [light, { ...canceled, kind: "light" }]).pass).toBe(false);
  });

  it("accepted exactly once: a job no submission got, or a resent key making a second job, fails it", () => {
    expect(invariants.acceptedExactlyOnce(sound, submissions).pass).toBe(true);
    const extra = { ...sound, jobs: [...sound.jobs, job("c", "done")] };
    expect(invariants.acceptedExactlyOnce(extra, submissions).detail).toMatch(
      /c was made but answered to no submission/,
    );
    const twice: Submission[] = [{ n: 0, kind: "twice", id: "a", secondId: "b" }, canceled];
    expect(invariants.acceptedExactlyOnce(sound, twice).pass).toBe(false);
    const refused: Submission[] = [...submissions, { n: 2, kind: "light", error: "ServiceUnavailableError" }];
    expect(invariants.acceptedExactlyOnce(sound, refused).pass).toBe(false);
  });

  it("charges exact: a second charge, a charged cancel or credits left reserved fail it", () => {
    const none = [{ plan: "pro", reserved: 0 }];
    expect(invariants.chargesExact(sound, none).pass).toBe(true);
    expect(
      invariants.chargesExact({ ...sound, charges: [{ job_id: "a", count: 2, amount: 2 }] }, none).pass,
    ).toBe(false);
    const chargedCancel = { ...sound, charges: [...sound.charges, { job_id: "b", count: 1, amount: 1 }] };
    expect(invariants.chargesExact(chargedCancel, none).pass).toBe(false);
    expect(invariants.chargesExact(sound, [{ plan: "pro", reserved: 3 }]).pass).toBe(false);
  });

  it("webhooks: a job with none taken fails it, unless all four attempts fell inside receiver faults", () => {
    const received: Received[] = [
      { webhookId: "d-a", jobId: "a", status: "done", answered: 204, signed: true },
      { webhookId: "d-b", jobId: "b", status: "failed", answered: 204, signed: true },
      { webhookId: "d-b", jobId: "b", status: "failed", answered: 204, signed: true },
    ];
    const ok = invariants.webhooksDelivered(sound, received, []);
    expect(ok.pass).toBe(true);
    expect(ok.detail).toMatch(/2 owed, 2 taken, 1 duplicates/);
    expect(invariants.webhooksDelivered(sound, received.slice(0, 1), []).pass).toBe(false);
    const unsigned = received.map((delivery) => ({ ...delivery, signed: delivery.jobId !== "a" }));
    expect(invariants.webhooksDelivered(sound, unsigned, []).pass).toBe(false);
    const wrongStatus = received.map((delivery) => ({ ...delivery, status: "done" }));
    expect(invariants.webhooksDelivered(sound, wrongStatus, []).pass).toBe(false);
    // Copies a receiver cannot tell are one delivery.
    const apart = received.map((delivery, index) => ({ ...delivery, webhookId: `d-${index}` }));
    expect(invariants.webhooksDelivered(sound, apart, []).detail).toMatch(/b's copies do not carry one/);
    // b's four attempts all answered 500 during the receiver's bad minute: the spec's retries ran out.
    const t0 = Date.parse("2026-11-30T10:00:00Z");
    const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
    const givenUp = {
      ...sound,
      deliveries: [{ job_id: "b", status: "failed", attempts: 4, attempt_times: [0, 5, 20, 45].map(at) }],
    };
    const window = [{ name: "webhook receiver answers 500", start: t0 - 1000, end: t0 + 60_000 }];
    expect(invariants.webhooksDelivered(givenUp, received.slice(0, 1), window).pass).toBe(true);
    expect(invariants.webhooksDelivered(givenUp, received.slice(0, 1), []).pass).toBe(false);
  });

  it("refusals: a 502, a 503 without Retry-After or an unanswered request fails it", () => {
    const fine: Answer[] = [
      { method: "POST", path: "/v1/rotate", status: 202 },
      { method: "POST", path: "/v1/rotate", status: 429, retryAfter: "12" },
      { method: "POST", path: "/v1/rotate", status: 503, retryAfter: "5" },
      { method: "POST", path: "/v1/jobs/a/cancel", status: 409, retryAfter: null },
    ];
    expect(invariants.refusalsClean(fine).pass).toBe(true);
    for (const bad of [
      { method: "POST", path: "/v1/rotate", status: 502, retryAfter: null },
      { method: "POST", path: "/v1/rotate", status: 503, retryAfter: null },
      { method: "GET", path: "/v1/jobs/a", status: 0, lost: "fetch failed" },
      { method: "POST", path: "/v1/rotate", status: 500, retryAfter: null },
    ])
      expect(invariants.refusalsClean([...fine, bad]).pass).toBe(false);
  });

  it("memory: one of octavo's services 20 % above its warm-up value fails it; a backing service is shown", () => {
    expect(invariants.memoryFlat({ api: 200 }, { api: 239 }, ["api"]).pass).toBe(true);
    expect(invariants.memoryFlat({ api: 200 }, { api: 241 }, ["api"]).pass).toBe(false);
    const redis = invariants.memoryFlat({ api: 200, redis: 6 }, { api: 200, redis: 9 }, ["api"]);
    expect(redis.pass).toBe(true);
    expect(redis.detail).toContain("redis 6→9 MiB (shown)");
  });
});
