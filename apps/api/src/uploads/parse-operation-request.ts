import { ApiError, bytesPerMB, nestedDeeperThan, serviceLimits } from "@octavo/contracts";
import type { StoredFile } from "@octavo/core";
import type { Request, Response } from "express";
import multer from "multer";
import { BlobStorageEngine } from "./blob-storage-engine.js";
import { cleanFileName, contentTypeOf } from "./file-names.js";
import type { InputSession } from "./input-session.js";

/** One input as the client sent it: an uploaded file (already stored) or a URL (not fetched yet). */
export type RequestedInput =
  | { kind: "file"; position: number; file: StoredFile; sha256: string }
  | { kind: "url"; position: number; url: string };

/** A file sent in one of the operation's named upload fields (Sign PDF's `certificate`): stored already. */
export interface NamedFile {
  field: string;
  /** Its place among the files of its field, in the order sent. */
  index: number;
  file: StoredFile;
  sha256: string;
}

/** What an operation request carries once its body has been read and its uploads stored. */
export interface OperationRequest {
  /** In the order sent: files and URLs may be mixed in Form A. */
  inputs: RequestedInput[];
  /** The files of the named upload fields, by field in the order sent. */
  named: NamedFile[];
  /** Form A or Form B: only Form A carries named uploads. */
  form: "multipart" | "json";
  /** The operation's options, or a pipeline's steps, as sent (parsed from JSON in form A). */
  rawOptions: unknown;
  webhookUrl: string | undefined;
}

/** The body field beside the inputs: an operation's options, or POST /v1/pipeline's steps. */
export type SettingsField = "options" | "steps";

const multipartFields = (field: SettingsField) => ["file", "url", field, "webhook_url"];
const jsonFields = (field: SettingsField) => ["url", "urls", field, "webhook_url"];

function fieldsInWords(fields: readonly string[]): string {
  return `The fields are ${fields.slice(0, -1).join(", ")} and ${fields.at(-1)}.`;
}
/** More than any operation accepts, so the count rule can name the problem itself. */
const MAX_PARTS = 64;

function fieldList(value: unknown): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

const megabytes = (bytes: number) => Math.round(bytes / bytesPerMB);

export function tooLarge(name: string, maxFileBytes: number): ApiError {
  const mb = megabytes(maxFileBytes);
  return new ApiError(
    "too_large",
    `${name} is larger than your plan allows.`,
    `Each file may be at most ${mb} MB on your plan.`,
  );
}

/**
 * What busboy (multer's parser) throws for a body that is not a well-formed form, by its message (busboy
 * gives no codes), and what the client should fix. Without this they reached the client as 500.
 */
const malformedBody: [RegExp, string, string][] = [
  [
    /^Multipart: Boundary not found$/,
    "The multipart/form-data Content-Type has no boundary.",
    "Send Content-Type: multipart/form-data; boundary=<the delimiter the body uses>. HTTP clients set it when they build the form; do not set the header by hand.",
  ],
  [
    /^Unexpected end of (form|file)$/,
    "The multipart body ended before its closing boundary.",
    "Send the whole form, ending with --<boundary>--, and a Content-Length that counts every byte.",
  ],
  [
    /^Malformed part header$/,
    "A part of the multipart body has a malformed header.",
    'Each part starts with a Content-Disposition: form-data; name="…" header line and a blank line.',
  ],
  [
    /^Request (aborted|closed)$/,
    "The request body did not arrive whole.",
    "The connection closed before the whole body was sent.",
  ],
];

function multerError(error: unknown): unknown {
  if (error instanceof Error && !(error instanceof ApiError)) {
    const known = malformedBody.find(([pattern]) => pattern.test(error.message));
    if (known) return new ApiError("invalid_request", known[1], known[2]);
  }
  if (!(error instanceof multer.MulterError)) return error;
  if (
    error.code === "LIMIT_PART_COUNT" ||
    error.code === "LIMIT_FILE_COUNT" ||
    error.code === "LIMIT_FIELD_COUNT"
  ) {
    return new ApiError(
      "invalid_input",
      "The request has too many parts.",
      `Send at most ${MAX_PARTS} files and fields.`,
    );
  }
  if (error.code === "LIMIT_FIELD_VALUE") {
    return new ApiError(
      "invalid_request",
      `The ${error.field ?? "form"} field is too long.`,
      `A form field may hold at most ${megabytes(serviceLimits.maxFieldBytes)} MB.`,
    );
  }
  return new ApiError("invalid_request", "The multipart body could not be read.", error.message);
}

function parseSettingsField(field: SettingsField, values: string[]): unknown {
  if (values.length > 1) throw new ApiError("invalid_request", `${field} may be sent once.`, "");
  const [text] = values;
  if (text === undefined || text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(
      "invalid_options",
      `The ${field} field is not valid JSON.`,
      field === "options"
        ? 'options: must be a JSON object, e.g. {"angle": 90}'
        : 'steps: must be a JSON array, e.g. [{"operation": "ocr"}, {"operation": "compress"}]',
    );
  }
}

/** What the endpoint takes besides the inputs: the settings field and the named upload fields. */
export interface RequestShape {
  field: SettingsField;
  /** The operation's named upload fields (FileRule.named), which only Form A can carry. */
  namedFields: readonly string[];
}

function wrongFileField(fieldname: string, namedFields: readonly string[]): ApiError {
  const fields = ["file", ...namedFields].map((name) => `"${name}"`);
  return new ApiError(
    "invalid_request",
    `Files must be sent in the field ${fields.length === 1 ? fields[0] : `${fields.slice(0, -1).join(", ")} or ${fields.at(-1)}`}, not "${fieldname}".`,
    "",
  );
}

async function readMultipart(
  req: Request,
  res: Response,
  session: InputSession,
  maxFileBytes: number,
  { field, namedFields }: RequestShape,
): Promise<OperationRequest> {
  let filesSeen = 0;
  const namedSeen = new Map<string, number>();
  let limitHit: (error: ApiError) => void = () => undefined;
  const overLimit = new Promise<never>((_resolve, reject) => {
    limitHit = reject;
  });
  const engine = new BlobStorageEngine(session.store, {
    place: (request, file) => {
      if (namedFields.includes(file.fieldname)) {
        const index = namedSeen.get(file.fieldname) ?? 0;
        namedSeen.set(file.fieldname, index + 1);
        return { key: session.allocateNamed(file.fieldname, index), position: index };
      }
      if (file.fieldname !== "file") throw wrongFileField(file.fieldname, namedFields);
      // Fields before this file are parsed already, so the URLs seen so far give its place in the order.
      const position = fieldList((request.body as Record<string, unknown>).url).length + filesSeen;
      filesSeen += 1;
      return { key: session.allocate(position), position };
    },
    maxFileBytes,
    onLimit: (request, file) => {
      request.unpipe();
      request.pause();
      limitHit(tooLarge(cleanFileName(file.originalname, "A file"), maxFileBytes));
    },
    track: (write) => session.writes.push(write),
  });
  const upload = multer({
    storage: engine,
    // Clients (browsers, curl, fetch's FormData) send file names in raw UTF-8; multer's default is Latin-1.
    defParamCharset: "utf8",
    // The per-file size is enforced by the storage engine, which can stop reading at once.
    limits: { parts: MAX_PARTS, fieldSize: serviceLimits.maxFieldBytes, fieldNameSize: 100 },
  }).any();
  const parsed = new Promise<void>((resolve, reject) => {
    upload(req, res, (error: unknown) => (error ? reject(multerError(error)) : resolve()));
  });
  // A file over the limit answers 413 at once; multer's own promise then only settles when the
  // connection closes, and its outcome no longer matters.
  parsed.catch(() => undefined);
  await Promise.race([parsed, overLimit]);

  const body = req.body as Record<string, unknown>;
  const fields = [...multipartFields(field), ...namedFields];
  const unknown = Object.keys(body).filter((name) => !fields.includes(name));
  if (unknown.length > 0)
    throw new ApiError("invalid_request", `Unknown field ${unknown.join(", ")}.`, fieldsInWords(fields));
  const webhooks = fieldList(body.webhook_url);
  if (webhooks.length > 1) throw new ApiError("invalid_request", "webhook_url may be sent once.", "");

  const inputs: RequestedInput[] = [];
  const named: NamedFile[] = [];
  const files = Array.isArray(req.files) ? req.files : [];
  for (const [index, file] of files.entries()) {
    const record = engine.records.get(file.path);
    if (!record) throw new Error(`upload ${file.path} has no record`);
    const name = cleanFileName(file.originalname, `file-${index + 1}`);
    const stored = { name, size: file.size, contentType: contentTypeOf(name), storageKey: record.key };
    if (file.fieldname === "file") {
      inputs.push({ kind: "file", position: record.position, file: stored, sha256: record.sha256 });
    } else {
      const field = file.fieldname;
      named.push({ field, index: record.position, file: { ...stored, field }, sha256: record.sha256 });
    }
  }
  // URLs fill the positions the files did not take, in the order they were sent.
  const taken = new Set(inputs.map((input) => input.position));
  let position = 0;
  for (const url of fieldList(body.url)) {
    while (taken.has(position)) position += 1;
    inputs.push({ kind: "url", position, url });
    position += 1;
  }
  inputs.sort((a, b) => a.position - b.position);
  named.sort((a, b) => a.field.localeCompare(b.field) || a.index - b.index);
  return {
    inputs,
    named,
    form: "multipart",
    rawOptions: parseSettingsField(field, fieldList(body[field])),
    webhookUrl: webhooks[0],
  };
}

function readJson(req: Request, field: SettingsField): OperationRequest {
  const body: unknown = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(
      "invalid_request",
      "The JSON body must be an object.",
      'For example {"url": "https://example.com/a.pdf", "options": {}}.',
    );
  }
  const record = body as Record<string, unknown>;
  const fields = jsonFields(field);
  const unknown = Object.keys(record).filter((name) => !fields.includes(name));
  if (unknown.length > 0)
    throw new ApiError("invalid_request", `Unknown field ${unknown.join(", ")}.`, fieldsInWords(fields));
  const urls: string[] = [];
  if (record.url !== undefined) {
    if (typeof record.url !== "string") throw new ApiError("invalid_request", "url must be a string.", "");
    urls.push(record.url);
  }
  if (record.urls !== undefined) {
    if (!Array.isArray(record.urls) || record.urls.some((url) => typeof url !== "string")) {
      throw new ApiError("invalid_request", "urls must be an array of strings.", "");
    }
    if (record.urls.length > serviceLimits.maxUrls) {
      throw new ApiError("invalid_input", "Too many URLs.", `urls: at most ${serviceLimits.maxUrls} entries`);
    }
    urls.push(...(record.urls as string[]));
  }
  if (record.webhook_url !== undefined && typeof record.webhook_url !== "string") {
    throw new ApiError("invalid_request", "webhook_url must be a string.", "");
  }
  return {
    inputs: urls.map((url, position) => ({ kind: "url", position, url })),
    named: [],
    form: "json",
    rawOptions: record[field],
    webhookUrl: record.webhook_url,
  };
}

/** Refuses settings nested beyond the limit before anything walks them recursively. */
function withinDepth(request: OperationRequest, field: SettingsField): OperationRequest {
  const { maxSettingsDepth } = serviceLimits;
  if (!nestedDeeperThan(request.rawOptions, maxSettingsDepth)) return request;
  throw new ApiError(
    "invalid_options",
    `The ${field} field is nested too deeply.`,
    `${field}: objects and arrays may nest at most ${maxSettingsDepth} levels deep`,
  );
}

/** Form A (multipart) or Form B (JSON); any other content type is refused before reading the body. */
export async function parseOperationRequest(
  req: Request,
  res: Response,
  session: InputSession,
  maxFileBytes: number,
  shape: RequestShape = { field: "options", namedFields: [] },
): Promise<OperationRequest> {
  const { field } = shape;
  if (req.is("multipart/form-data")) {
    return withinDepth(await readMultipart(req, res, session, maxFileBytes, shape), field);
  }
  if (req.is("application/json")) return withinDepth(readJson(req, field), field);
  throw new ApiError(
    "invalid_request",
    `Content-Type ${req.get("content-type") ?? "(none)"} is not supported.`,
    "Send multipart/form-data (files, URLs) or application/json (URLs).",
  );
}
