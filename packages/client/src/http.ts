import { type ApiError, apiErrorFor, ConnectionError } from "./errors.js";
import { RateLimitGate, type RateLimitState } from "./rate-limit.js";
import { sleep } from "./sleep.js";

/** Settings of the HTTP layer; every one has a default. */
export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  /** Retries of a request answered 429 or 503, or lost to the network. */
  maxRetries: number;
  /** Milliseconds before a request without an answer is abandoned (and retried). */
  timeout: number;
  /** Sends a random Idempotency-Key with every POST, reused by its retries. */
  idempotencyKeys: boolean;
  /** Waits for the window to reset before a request when the last answer said none are left. */
  respectRateLimit: boolean;
  fetch: typeof fetch;
  headers: Record<string, string>;
}

/** A request body, built again for each attempt (a stream can be sent only once). */
export interface Body {
  body: BodyInit;
  headers?: Record<string, string>;
}

export interface Request {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: () => Body | Promise<Body>;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Added to the timeout, for a long poll that holds the answer. */
  extraTimeout?: number;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Longest Retry-After honoured before giving up; the API asks for at most a minute. */
const MAX_RETRY_AFTER_MS = 65_000;

/** Exponential backoff with jitter: about 0.5, 1, 2, 4, 8 s. */
function backoff(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorOf(answer: Answer): ApiError {
  const body = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as Record<
    string,
    unknown
  >;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return apiErrorFor(
    {
      status: answer.status,
      error: text(body.error) ?? `http_${answer.status}`,
      message: text(body.message) ?? `The API answered HTTP ${answer.status}.`,
      detail: text(body.detail),
      requestId: text(body.requestId) ?? answer.headers.get("x-request-id") ?? undefined,
    },
    retryAfterSeconds(answer.headers),
  );
}

/** Calls the API: authentication, timeouts, retries with backoff, idempotency keys, the rate budget. */
export class Transport {
  private readonly gate: RateLimitGate;

  constructor(readonly options: TransportOptions) {
    this.gate = new RateLimitGate(options.respectRateLimit);
  }

  get rateLimit(): RateLimitState | undefined {
    return this.gate.state;
  }

  url(path: string, query: Request["query"] = {}): string {
    const url = new URL(
      path,
      this.options.baseUrl.endsWith("/") ? this.options.baseUrl : `${this.options.baseUrl}/`,
    );
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  /** The answer's JSON body; an error answer throws its typed ApiError. */
  async json<T>(request: Request): Promise<T> {
    const answer = await this.send(request);
    return answer.body as T;
  }

  async send(request: Request): Promise<Answer> {
    const idempotencyKey =
      request.method === "POST"
        ? (request.idempotencyKey ?? (this.options.idempotencyKeys ? crypto.randomUUID() : undefined))
        : undefined;
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.options.maxRetries;
      let answer: Answer;
      try {
        answer = await this.attempt(request, idempotencyKey);
      } catch (error) {
        if (!(error instanceof ConnectionError) || !retriesLeft) throw error;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (answer.status < 400) return answer;
      const error = errorOf(answer);
      const delay = retriesLeft ? this.retryDelay(answer, error, attempt, idempotencyKey) : undefined;
      if (delay === undefined) throw error;
      await sleep(delay, request.signal);
    }
  }

  /** How long to wait before retrying this error answer, or undefined when it is not worth retrying. */
  private retryDelay(
    answer: Answer,
    error: ApiError,
    attempt: number,
    idempotencyKey: string | undefined,
  ): number | undefined {
    const retryAfter = retryAfterSeconds(answer.headers);
    if (answer.status === 429) {
      this.gate.exhausted(retryAfter ?? 1);
      const ms = (retryAfter ?? 1) * 1000;
      return ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
    }
    if (answer.status === 503) {
      return retryAfter === undefined ? backoff(attempt) : Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS);
    }
    // A retry of our own request under its key, while the first attempt (whose answer was lost) is
    // still being accepted: the same body, so the conflict can only mean "still in progress".
    if (attempt > 0 && idempotencyKey !== undefined && error.error === "idempotency_conflict")
      return backoff(attempt);
    return undefined;
  }

  private async attempt(request: Request, idempotencyKey: string | undefined): Promise<Answer> {
    await this.gate.take(request.signal);
    const body = request.body ? await request.body() : undefined;
    const timeout = AbortSignal.timeout(this.options.timeout + (request.extraTimeout ?? 0));
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      ...this.options.headers,
      authorization: `Bearer ${this.options.apiKey}`,
      accept: "application/json",
      ...body?.headers,
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    };
    const init: RequestInit & { duplex?: "half" } = { method: request.method, headers, signal };
    if (body) {
      init.body = body.body;
      if (body.body instanceof ReadableStream) init.duplex = "half";
    }
    let response: Response;
    try {
      response = await this.options.fetch(this.url(request.path, request.query), init);
    } catch (cause) {
      // The caller's own abort is not a connection problem: pass it on as it is.
      if (request.signal?.aborted) throw request.signal.reason;
      const timedOut = timeout.aborted;
      throw new ConnectionError(
        {
          error: "connection_error",
          message: timedOut
            ? `No answer from ${this.options.baseUrl} within ${this.options.timeout} ms.`
            : `Could not reach ${this.options.baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}.`,
        },
        { cause },
      );
    }
    this.gate.update(response.headers);
    let parsed: unknown;
    try {
      parsed = await readBody(response);
    } catch (cause) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new ConnectionError(
        { error: "connection_error", message: "The connection broke while reading the answer." },
        { cause },
      );
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }
}
