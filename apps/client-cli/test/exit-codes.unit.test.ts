import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  FileTooLargeError,
  JobFailedError,
  NotFoundError,
  OctavoError,
  PermissionDeniedError,
  QuotaExceededError,
  RateLimitError,
  UnavailableError,
  WaitTimeoutError,
} from "@octavo/client";
import { describe, expect, it } from "vitest";
import { ExitCode, exitCodeFor, worstExitCode } from "../src/exit-codes.js";
import { UsageError } from "../src/usage-error.js";

const answer = (status: number) => ({ error: "some_code", message: "Refused.", status, requestId: "req-1" });
const job = {
  id: "5f0c6c1e-0000-4000-8000-000000000000",
  status: "failed",
  progress: 0,
  operation: "compress",
  credits: 2,
  livemode: true,
  createdAt: "2025-01-01T00:00:00.000Z",
  error: "password_required",
  message: "The PDF needs a password.",
} as const;

describe("exit codes", () => {
  it("maps each kind of failure to its code", () => {
    expect(exitCodeFor(new UsageError("bad flag"))).toBe(ExitCode.usage);
    expect(exitCodeFor(new JobFailedError(job))).toBe(ExitCode.jobFailed);
    for (const refused of [
      new BadRequestError(answer(400)),
      new QuotaExceededError(answer(402)),
      new PermissionDeniedError(answer(403)),
      new NotFoundError(answer(404)),
      new ConflictError(answer(409)),
      new FileTooLargeError(answer(413)),
    ]) {
      expect(exitCodeFor(refused), refused.name).toBe(ExitCode.refused);
    }
    expect(exitCodeFor(new AuthenticationError(answer(401)))).toBe(ExitCode.authentication);
    expect(exitCodeFor(new RateLimitError(answer(429)))).toBe(ExitCode.unavailable);
    expect(exitCodeFor(new UnavailableError(answer(503)))).toBe(ExitCode.unavailable);
    expect(exitCodeFor(new OctavoError(answer(500)))).toBe(ExitCode.unavailable);
    expect(exitCodeFor(new ConnectionError({ error: "connection_error", message: "Refused." }))).toBe(
      ExitCode.unavailable,
    );
    expect(exitCodeFor(new WaitTimeoutError({ ...job, status: "active" }))).toBe(ExitCode.unavailable);
    expect(exitCodeFor(new Error("EACCES: permission denied"))).toBe(ExitCode.jobFailed);
  });

  it("gives a batch the worst of its jobs' codes", () => {
    expect(worstExitCode([])).toBe(ExitCode.ok);
    expect(worstExitCode([ExitCode.ok, ExitCode.ok])).toBe(ExitCode.ok);
    expect(worstExitCode([ExitCode.ok, ExitCode.jobFailed, ExitCode.ok])).toBe(ExitCode.jobFailed);
    expect(worstExitCode([ExitCode.jobFailed, ExitCode.unavailable, ExitCode.refused])).toBe(
      ExitCode.unavailable,
    );
  });
});
