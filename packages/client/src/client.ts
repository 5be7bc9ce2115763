import { JobFailedError, OctavoError } from "./errors.js";
import { operationExtensions, operationPaths } from "./generated/routes.js";
import { Transport } from "./http.js";
import { type Files, readInputs, requestBody, type UploadProgress } from "./inputs.js";
import { Jobs, type WaitOptions } from "./jobs.js";
import { type DoneJob, type Job, withOutputFiles } from "./outputs.js";
import { type Platform, webPlatform } from "./platform.js";
import type { RateLimitState } from "./rate-limit.js";
import type { Account, JobCreated, OperationId, OperationOptions, PipelineStep } from "./types.js";
import { VERSION } from "./version.js";

/** The client's own way to receive its runtime's file access (the Node entry's); not part of the API. */
export const platformOption = Symbol("octavo.platform");

/** Settings of a client; every one has a default. */
export interface ClientOptions {
  /** The API key (`svc_live_…`); by default the OCTAVO_API_KEY environment variable. */
  apiKey?: string;
  /** The service's address; by default OCTAVO_BASE_URL, else http://127.0.0.1:8000. */
  baseUrl?: string;
  /** Retries of a request answered 429 (after its Retry-After) or 503, or lost to the network; 2 by default. */
  maxRetries?: number;
  /** Milliseconds to wait for an answer before the request is retried or fails; 60 s by default. */
  timeout?: number;
  /**
   * Sends a random `Idempotency-Key` with every POST, the same on each retry, so a retried submission
   * never creates a second job. On by default; a request's own `idempotencyKey` takes precedence.
   */
  idempotencyKeys?: boolean;
  /** Holds a request back until the rate-limit window resets once the last answer said none are left. On by default. */
  respectRateLimit?: boolean;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** @internal The runtime's file access: the Node entry passes its own. */
  [platformOption]?: Platform;
}

/** Per-request settings of a submission. */
export interface SubmitOptions {
  /** Called with the job when it ends (paid plans); verify it with `verifyWebhook`. */
  webhookUrl?: string | undefined;
  /** Your own idempotency key, e.g. your order id, to make a resubmission return the first job. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Called as the files are uploaded. */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
}

/** A submission that is then waited for. */
export type RunOptions = SubmitOptions & WaitOptions;

type Env = Record<string, string | undefined>;
const env: Env = (globalThis as { process?: { env?: Env } }).process?.env ?? {};

/** The method of an operation: its inputs in order, its options, the request's settings. */
export type Submit<Id extends OperationId> = (
  files: Files,
  options?: OperationOptions[Id],
  request?: SubmitOptions,
) => Promise<JobCreated>;

/**
 * A client of the octavo API. Every operation submits a job and answers at once with its id; wait
 * for it with `jobs.wait`, or use `run` to submit, wait and get the outputs in one call.
 *
 * @example
 * import { Octavo } from "@octavo/client";
 *
 * const client = new Octavo(); // OCTAVO_API_KEY and OCTAVO_BASE_URL from the environment
 * const job = await client.run("merge", ["a.pdf", "b.pdf"]);
 * await job.outputs[0].download("merged.pdf");
 */
export class Octavo {
  private readonly transport: Transport;
  private readonly platform: Platform;
  /** Read, wait for, list, cancel and delete jobs. */
  readonly jobs: Jobs;
  /** The account's plan, credits and limits. */
  readonly account: {
    /** The plan, this month's credits (used, reserved, remaining) and the plan's limits. */
    get(): Promise<Account>;
  };

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? env.OCTAVO_API_KEY;
    if (!apiKey) {
      throw new OctavoError({
        error: "missing_api_key",
        message: "No API key: pass { apiKey } or set OCTAVO_API_KEY (create one in the dashboard).",
      });
    }
    this.platform = options[platformOption] ?? webPlatform;
    this.transport = new Transport({
      apiKey,
      baseUrl: options.baseUrl ?? env.OCTAVO_BASE_URL ?? "http://127.0.0.1:8000",
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeout ?? 60_000,
      idempotencyKeys: options.idempotencyKeys ?? true,
      respectRateLimit: options.respectRateLimit ?? true,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      headers: { "user-agent": `octavo-client-js/${VERSION}`, ...options.headers },
    });
    const fetcher = this.transport.options.fetch;
    this.jobs = new Jobs(this.transport, (job) => withOutputFiles(job, fetcher, this.platform));
    this.account = { get: () => this.transport.json<Account>({ method: "GET", path: "/v1/account" }) };
  }

  /** What the last answer said of the account's per-minute request budget. */
  get rateLimit(): RateLimitState | undefined {
    return this.transport.rateLimit;
  }

  /**
   * Submits a job of any operation: the inputs in order, the operation's options.
   *
   * @example
   * const created = await client.submit("word-to-pdf", ["report.docx"]);
   * const job = await client.jobs.wait(created.id);
   */
  async submit<Id extends OperationId>(
    operation: Id,
    files: Files,
    options?: OperationOptions[Id],
    request: SubmitOptions = {},
  ): Promise<JobCreated> {
    const path = operationPaths[operation];
    if (path === undefined) throw new TypeError(`Unknown operation "${operation}".`);
    return this.post(path, operation, files, { options }, request);
  }

  /**
   * Submits, waits for the job and returns it with its outputs; throws `JobFailedError` when it fails.
   *
   * @example
   * const job = await client.run("ocr", "scan.pdf", { languages: ["eng", "deu"] });
   * await job.outputs[0].download("searchable.pdf");
   */
  async run<Id extends OperationId>(
    operation: Id,
    files: Files,
    options?: OperationOptions[Id],
    request: RunOptions = {},
  ): Promise<DoneJob> {
    const created = await this.submit(operation, files, options, request);
    return this.finished(await this.jobs.wait(created.id, request));
  }

  /**
   * Runs several operations as one job: each step's outputs are the next step's inputs.
   *
   * @example
   * const created = await client.pipeline("scan.pdf", [
   *   { operation: "ocr", options: { languages: ["eng"] } },
   *   { operation: "compress" },
   * ]);
   */
  async pipeline(
    files: Files,
    steps: readonly PipelineStep[],
    request: SubmitOptions = {},
  ): Promise<JobCreated> {
    const first = steps[0]?.operation;
    const extensions = first === undefined ? [] : operationExtensions[first];
    return this.post("/v1/pipeline", "pipeline", files, { steps }, request, extensions);
  }

  /** The method of one operation: `client.merge`, `client.convert.wordToPdf`. */
  private operation<Id extends OperationId>(id: Id): Submit<Id> {
    return (files, options, request) => this.submit(id, files, options, request);
  }

  /** Throws `JobFailedError` for a failed job; the job otherwise. */
  private finished(job: Job): DoneJob {
    if (job.status !== "done") throw new JobFailedError(job);
    return { ...job, status: "done", outputs: job.outputs ?? [] };
  }

  private async post(
    path: string,
    operation: OperationId | "pipeline",
    files: Files,
    fields: Record<string, unknown>,
    request: SubmitOptions,
    extensions: readonly string[] = operation === "pipeline" ? [] : operationExtensions[operation],
  ): Promise<JobCreated> {
    const parts = await readInputs(files, extensions, operation, this.platform);
    const body = { ...fields, webhook_url: request.webhookUrl };
    return this.transport.json<JobCreated>({
      method: "POST",
      path,
      body: () => requestBody(parts, body, request.onUploadProgress),
      idempotencyKey: request.idempotencyKey,
      signal: request.signal,
    });
  }

  // One method per operation, named after it. Each submits a job and answers with its id at once.
  // <generated: scripts/generate.mjs writes this part from the catalogue of the OpenAPI document>
  /** Merge PDF: combines the inputs into one PDF in the order sent. */
  readonly merge = this.operation("merge");
  /** Split PDF: one output file per page, or per range when ranges is given. */
  readonly split = this.operation("split");
  /** Rotate PDF: rotates clockwise, all pages or the listed pages. */
  readonly rotate = this.operation("rotate");
  /** Compress PDF: downsamples images and removes redundant data. */
  readonly compress = this.operation("compress");
  /** Repair PDF: rebuilds a damaged or partly corrupted PDF. */
  readonly repair = this.operation("repair");
  /** OCR PDF: adds a searchable text layer to scanned PDFs. */
  readonly ocr = this.operation("ocr");
  /** Protect PDF: encrypts with AES-256 and sets permissions. */
  readonly protect = this.operation("protect");
  /** Unlock PDF: removes the password and restrictions from a PDF whose password is known. */
  readonly unlock = this.operation("unlock");
  /**
   * Watermark PDF: draws text over each page (or the listed pages) with the given opacity, upright on rotated
   * pages; the text is real text and the content underneath is untouched.
   */
  readonly watermark = this.operation("watermark");
  /**
   * Add page numbers: writes page numbers as text inside each page's visible area, upright on rotated pages;
   * {n} counts from start over the numbered pages and {total} is how many they are.
   */
  readonly pageNumbers = this.operation("page-numbers");
  /**
   * Flatten PDF: turns form fields with their values and annotations into page content, so they can no longer
   * be edited; what was visible stays where it was.
   */
  readonly flatten = this.operation("flatten");
  /**
   * Edit metadata: sets title, author, subject, creator and keywords in both the Info dictionary and the XMP
   * packet, or removes all document metadata first; PDF/A files stay PDF/A where the change allows.
   */
  readonly metadata = this.operation("metadata");
  /**
   * PDF info: reports the document's facts as JSON (<name>.json): PDF version, pages and their sizes,
   * metadata, tags, PDF/A claim, language, bookmarks, form fields, links, attachments and the pages without
   * text (the ones OCR would help).
   */
  readonly pdfInfo = this.operation("pdf-info");
  /**
   * Redact PDF: removes, not covers, exact text, RE2 patterns, presets (email, phone, IBAN, card, SSN, IP
   * addresses) and areas.
   */
  readonly redact = this.operation("redact");
  /**
   * Sign PDF: signs with a PAdES baseline signature (ETSI.CAdES.detached, SHA-256; B-B, or B-T with a
   * time-stamp server) in an incremental update, so the original bytes and earlier signatures stay intact;
   * visible or invisible, approval or certification (DocMDP).
   */
  readonly sign = this.operation("sign");
  /**
   * Verify signatures: reports every signature (report.json, and in the job as verification): integrity, what
   * the signature covers and whether later revisions only made allowed changes, the certificate's validity at
   * signing time, the chain to a trusted root, the time-stamp, and revocation data only as far as the file
   * embeds it (nothing is fetched).
   */
  readonly verifySignatures = this.operation("verify-signatures");
  /**
   * Generate document: fills a Word, Excel, PowerPoint or OpenDocument template's placeholders from
   * options.data (or an uploaded data.json): values, loops that repeat table rows, list items and slides,
   * conditions, date, number and currency formatters by locale, and images from data URLs or allowed URLs.
   */
  readonly generate = this.operation("generate");
  /**
   * Read form: reports every AcroForm field (fields.json, and in the job as form): its fully qualified name,
   * type, value, options with their export values, flags (required, read-only, multiline, comb, max length)
   * and the page and rectangle of each widget.
   */
  readonly formsRead = this.operation("forms-read");
  /**
   * Fill form: fills AcroForm fields from options.values (names as forms/read reports them) and draws each
   * filled widget's appearance (the field's font, size or auto-size, alignment, comb and multiline;
   * characters the field's font lacks in an embedded font that has them), so every viewer shows the values.
   */
  readonly formsFill = this.operation("forms-fill");

  /** Conversions to and from PDF. */
  readonly convert = {
    /** Word to PDF: converts word-processing documents; one PDF output per input file. */
    wordToPdf: this.operation("word-to-pdf"),
    /** PowerPoint to PDF: converts presentations; one PDF output per input file. */
    powerpointToPdf: this.operation("powerpoint-to-pdf"),
    /** Excel to PDF: converts spreadsheets; one PDF output per input file. */
    excelToPdf: this.operation("excel-to-pdf"),
    /** HTML / URL to PDF: renders a public page or an uploaded HTML file with a browser engine. */
    htmlToPdf: this.operation("html-to-pdf"),
    /**
     * PDF to Word: converts to an editable DOCX: flowing paragraphs with their fonts, headings, pictures and
     * Word tables, multi-column pages in reading order.
     */
    pdfToWord: this.operation("pdf-to-word"),
    /**
     * PDF to PowerPoint: converts to a PPTX with one slide per page, each the size of its page: the page's
     * graphics as the slide's background and its text as editable text boxes at their positions.
     */
    pdfToPowerpoint: this.operation("pdf-to-powerpoint"),
    /** PDF to Excel: converts to an XLSX workbook. */
    pdfToExcel: this.operation("pdf-to-excel"),
    /** PDF to PDF/A: archival conversion to PDF/A. */
    pdfToPdfa: this.operation("pdf-to-pdfa"),
    /**
     * PDF to Image: one PNG, JPEG or WebP image per page (or per listed page), named <name>-p<page>.<ext>,
     * each the page's visible size × dpi / 72 pixels with its rotation applied.
     */
    pdfToImage: this.operation("pdf-to-image"),
    /**
     * Image to PDF: one PDF with a page per image in the order sent (every frame of a multi-page TIFF, the
     * first of an animated GIF).
     */
    imageToPdf: this.operation("image-to-pdf"),
    /**
     * PDF to Markdown: converts to Markdown, JSON or plain text for search and language models: the text in
     * reading order (columns, paragraphs joined, hyphenation undone), headings from the font sizes and the
     * outline, lists, tables (GFM, or HTML where cells span), figures with their captions, footnotes, code
     * and links; running headers and page numbers left out.
     */
    pdfToMarkdown: this.operation("pdf-to-markdown"),
  };
  // </generated>
}
