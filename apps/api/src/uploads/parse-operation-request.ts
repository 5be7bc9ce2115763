import { ApiError } from "@octavo/contracts";
import type { StoredFile } from "@octavo/core";
import type { BlobStore } from "@octavo/storage";
import type { Request, Response } from "express";
import multer from "multer";
import { BlobStorageEngine } from "./blob-storage-engine.js";
import { cleanFileName, contentTypeOf } from "./file-names.js";

/** What an operation request carries once its body has been read and its uploads stored. */
export interface OperationRequest {
  inputs: StoredFile[];
  urls: string[];
  rawOptions: unknown;
  webhookUrl: string | undefined;
}

const MULTIPART_FIELDS = new Set(["file", "url", "options", "webhook_url"]);
const JSON_FIELDS = new Set(["url", "urls", "options", "webhook_url"]);
/** More than any operation accepts, so the count rule can name the problem itself. */
const MAX_PARTS = 64;

function fieldList(value: unknown): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function humanBytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function uploadError(error: unknown, maxFileBytes: number): unknown {
  if (!(error instanceof multer.MulterError)) return error;
  switch (error.code) {
    case "LIMIT_FILE_SIZE":
      return new ApiError(
        "too_large",
        `The file ${error.field === "file" ? "" : `in field ${error.field} `}is larger than your plan allows.`,
        `Each file may be at most ${humanBytes(maxFileBytes)} on your plan.`,
      );
    case "LIMIT_PART_COUNT":
    case "LIMIT_FILE_COUNT":
    case "LIMIT_FIELD_COUNT":
      return new ApiError(
        "invalid_input",
        "The request has too many parts.",
        `Send at most ${MAX_PARTS} files and fields.`,
      );
    default:
      return new ApiError("invalid_request", "The multipart body could not be read.", error.message);
  }
}

async function readMultipart(
  req: Request,
  res: Response,
  store: BlobStore,
  jobId: string,
  maxFileBytes: number,
): Promise<OperationRequest> {
  const inputs: StoredFile[] = [];
  let nextIndex = 0;
  const engine = new BlobStorageEngine(store, (_req, file) => {
    if (file.fieldname !== "file") {
      throw new ApiError(
        "invalid_request",
        `Files must be sent in the field "file", not "${file.fieldname}".`,
        "",
      );
    }
    const key = `jobs/${jobId}/inputs/${nextIndex}`;
    nextIndex += 1;
    return key;
  });
  const upload = multer({
    storage: engine,
    limits: { fileSize: maxFileBytes, parts: MAX_PARTS, fieldSize: 1024 * 1024, fieldNameSize: 100 },
  }).any();
  // On failure multer removes the files it already stored: nothing of a refused request is kept.
  await new Promise<void>((resolve, reject) => {
    upload(req, res, (error: unknown) => (error ? reject(uploadError(error, maxFileBytes)) : resolve()));
  });
  const files = Array.isArray(req.files) ? req.files : [];
  for (const [index, file] of files.entries()) {
    const name = cleanFileName(file.originalname, `file-${index + 1}`);
    inputs.push({ name, size: file.size, contentType: contentTypeOf(name), storageKey: file.path });
  }
  const body = req.body as Record<string, unknown>;
  const unknown = Object.keys(body).filter((field) => !MULTIPART_FIELDS.has(field));
  const options = fieldList(body.options);
  const webhooks = fieldList(body.webhook_url);
  if (unknown.length > 0) {
    throw new ApiError(
      "invalid_request",
      `Unknown field ${unknown.join(", ")}.`,
      "The fields are file, url, options and webhook_url.",
    );
  }
  if (options.length > 1 || webhooks.length > 1) {
    throw new ApiError("invalid_request", "options and webhook_url may each be sent once.", "");
  }
  let rawOptions: unknown;
  if (options[0] !== undefined && options[0].trim() !== "") {
    try {
      rawOptions = JSON.parse(options[0]);
    } catch {
      throw new ApiError(
        "invalid_options",
        "The options field is not valid JSON.",
        'options: must be a JSON object, e.g. {"angle": 90}',
      );
    }
  }
  return { inputs, urls: fieldList(body.url), rawOptions, webhookUrl: webhooks[0] };
}

function readJson(req: Request): OperationRequest {
  const body: unknown = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(
      "invalid_request",
      "The JSON body must be an object.",
      'For example {"url": "https://example.com/a.pdf", "options": {}}.',
    );
  }
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).filter((field) => !JSON_FIELDS.has(field));
  if (unknown.length > 0) {
    throw new ApiError(
      "invalid_request",
      `Unknown field ${unknown.join(", ")}.`,
      "The fields are url, urls, options and webhook_url.",
    );
  }
  const urls: string[] = [];
  if (record.url !== undefined) {
    if (typeof record.url !== "string") throw new ApiError("invalid_request", "url must be a string.", "");
    urls.push(record.url);
  }
  if (record.urls !== undefined) {
    if (!Array.isArray(record.urls) || record.urls.some((url) => typeof url !== "string")) {
      throw new ApiError("invalid_request", "urls must be an array of strings.", "");
    }
    if (record.urls.length > 20)
      throw new ApiError("invalid_input", "Too many URLs.", "urls holds at most 20 entries.");
    urls.push(...(record.urls as string[]));
  }
  if (record.webhook_url !== undefined && typeof record.webhook_url !== "string") {
    throw new ApiError("invalid_request", "webhook_url must be a string.", "");
  }
  return { inputs: [], urls, rawOptions: record.options, webhookUrl: record.webhook_url };
}

/** Form A (multipart) or Form B (JSON); any other content type is refused before reading the body. */
export async function parseOperationRequest(
  req: Request,
  res: Response,
  store: BlobStore,
  jobId: string,
  maxFileBytes: number,
): Promise<OperationRequest> {
  if (req.is("multipart/form-data")) return readMultipart(req, res, store, jobId, maxFileBytes);
  if (req.is("application/json")) return readJson(req);
  throw new ApiError(
    "invalid_request",
    `Content-Type ${req.get("content-type") ?? "(none)"} is not supported.`,
    "Send multipart/form-data (files) or application/json (URLs).",
  );
}
