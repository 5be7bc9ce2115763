// Also exported alone as @octavo/contracts/limits (and durations.ts as /durations): the engines read
// these numbers in every sandbox process, whose start should not pay for the option schemas and the
// OpenAPI document the package's index loads (about 0.15 s of CPU).

/** The spec's fixed numbers that are not per plan, in one place so the API, workers and docs agree. */
export const serviceLimits = {
  /** A job running longer than this fails with `timeout`. */
  jobTimeoutSeconds: 5 * 60,
  /** Signed download links are valid this long; reading the job again gives a fresh one. */
  downloadLinkTtlSeconds: 15 * 60,
  /** Results are deleted this long after the job. */
  resultTtlSeconds: 60 * 60,
  /** Most entries in the JSON form's `urls`. */
  maxUrls: 20,
  /** A JSON body (form B), or one field of a multipart form (form A), is at most this long. */
  maxFieldBytes: 1024 * 1024,
  /**
   * `options` and `steps` nest objects and arrays at most this deep. The deepest valid value, a list
   * in a pipeline step's options, is 4 levels (steps, step, options, list); 1 MB holds 100,000.
   */
  maxSettingsDepth: 32,
  /** Webhook retries after a failed first delivery, spread over about `webhookRetryWindowSeconds`. */
  webhookRetries: 3,
  webhookRetryWindowSeconds: 45,
  /** Receivers reject deliveries whose timestamp is further than this from their clock. */
  webhookToleranceSeconds: 300,
} as const;

/**
 * What an input may hold, read before any engine works on it; a file over a limit fails its job with
 * invalid_input, naming the limit. The engines and the Office converter check these, and the API
 * description states them.
 */
export const inputLimits = {
  /** A PDF with more pages than this (counting only a page tree with an object for each page). */
  maxPages: 20_000,
  /**
   * A PDF with more objects than this. qpdf holds about 400 bytes an object, so a million take 400 MB
   * of a sandbox's 2 GB before any page is read; the densest file of the corpus has 25,688 objects on
   * one page, the largest 13,689 over 104 pages.
   */
  maxObjects: 1_000_000,
  /**
   * An image that decodes to more bytes than this (width × height × bits per pixel): every engine that
   * renders it would hold it whole, beyond half a sandbox's default 2 GB. The largest image of the
   * corpus, a 35,000 × 35,000 one-bit scan, decodes to 153 MB.
   */
  maxImageBytes: 1024 ** 3,
  /**
   * A stream (other than an image) that inflates beyond this: a decompression bomb. Content streams
   * of the largest vector maps run to tens of megabytes; no stream of the corpus passes 64 MB.
   */
  maxInflatedStreamBytes: 512 * 1024 ** 2,
  /**
   * An Office package (ZIP) that unpacks to more than this at over `maxPackingRatio` times its size is
   * a ZIP bomb. Office XML packs 5 to 20 times, so no real document of an allowed size is both; a bomb
   * of repeated bytes packs a thousand times.
   */
  maxUnpackedBytes: 256 * 1024 ** 2,
  maxPackingRatio: 100,
} as const;

/**
 * What one PDF to Image job may render, checked on the page sizes before any page is drawn. A page
 * of 100 million pixels is 300 MB of RGB in the engine's memory (an A2 sheet at 600 dpi, 70 MP,
 * fits); 1.5 billion pixels in all is a few minutes' rendering and encoding, inside the job timeout
 * (A4 at the default 150 dpi is 2.2 million pixels a page: about 690 pages).
 */
export const imageRenderLimits = {
  maxPages: 1_000,
  maxPixelsPerPage: 100_000_000,
  maxTotalPixels: 1_500_000_000,
} as const;

/** What one Image to PDF input may decode to: a 16-bit RGBA image of this many pixels is 2 GB. */
export const imageInputLimits = {
  maxPixels: 268_402_689,
} as const;

export const webhookSignatureHeader = "SVC-Signature";
/** What an API key starts with, by its mode; the mode itself is stored with the key's hash. */
export const apiKeyPrefixes = { live: "svc_live_", test: "svc_test_" } as const;

/** A test key's own limits (issue 38): its jobs are free, so they are small, few and short-lived. */
export const testModeLimits = {
  /** Jobs a minute per account, counted across the account's test keys. */
  jobsPerMinute: 20,
  /** How long a test job's outputs are kept, at most (the operator's result TTL when shorter). */
  resultTtlSeconds: 3600,
  /** Pages an input file may have; an Office, HTML or image input is counted by the PDF it becomes. */
  pagesPerInput: 10,
} as const;
