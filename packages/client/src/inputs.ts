import type { Body } from "./http.js";
import type { Platform } from "./platform.js";

/** Bytes, in any of the forms the runtimes have. A Node.js Readable is accepted by the Node entry. */
export type FileData =
  | Uint8Array
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

/**
 * One input of a job:
 * - a string: an `http(s)://` URL the service downloads itself, otherwise a file path (Node.js);
 * - a `URL`, or `{ url }`: a public file the service downloads;
 * - bytes (`Buffer`, `Uint8Array`, `ArrayBuffer`), a `Blob` or `File`, or a readable stream;
 * - `{ data, name }`: bytes with the file name the service sees (its extension tells the type);
 * - `{ path, name? }`: a file on disk, optionally sent under another name.
 *
 * `field` sends a file in one of the operation's named upload fields instead of as a document to process:
 * Sign PDF's `certificate` (`{ path: "signer.p12", field: "certificate" }`) and `image`, Verify signatures'
 * `roots`.
 */
export type FileInput =
  | string
  | URL
  | FileData
  | { data: FileData; name: string; field?: string }
  | { path: string; name?: string; field?: string }
  | { url: string | URL };

/** The inputs of a job, in order: one, or a list. */
export type Files = FileInput | readonly FileInput[];

/** An input ready to send: a file to upload (in a named field, or as a document) or a URL to fetch. */
export type Part = { url: string } | { blob: Blob; name: string; field?: string };

const urlPattern = /^https?:\/\//i;

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

function isAsyncIterable(value: object): value is AsyncIterable<Uint8Array> {
  return Symbol.asyncIterator in value;
}

async function toBlob(data: FileData | object, platform: Platform): Promise<Blob> {
  if (data instanceof Blob) return data;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) return new Blob([data as BlobPart]);
  const native = platform.readStream(data);
  if (native !== undefined) return native;
  if (data instanceof ReadableStream) return new Response(data).blob();
  if (isAsyncIterable(data)) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of data) chunks.push(chunk);
    return new Blob(chunks as BlobPart[]);
  }
  throw new TypeError(
    "An input must be a path, a URL, bytes, a Blob, a readable stream, { data, name }, { path } or { url }.",
  );
}

/** A name for an upload that came without one: the operation's extension when it takes only one. */
function defaultName(index: number, extensions: readonly string[], operation: string): string {
  const [only, ...others] = extensions;
  if (only === undefined || others.length > 0) {
    throw new TypeError(
      `Name input ${index + 1}: pass { data, name: "file${extensions[0] ?? ""}" } so the service knows its type ` +
        `(${operation} takes ${extensions.join(", ")} files).`,
    );
  }
  return `input-${index + 1}${only}`;
}

async function toPart(
  input: FileInput,
  index: number,
  extensions: readonly string[],
  operation: string,
  platform: Platform,
): Promise<Part> {
  if (typeof input === "string") {
    if (urlPattern.test(input)) return { url: input };
    return { blob: await platform.openPath(input), name: baseName(input) };
  }
  if (input instanceof URL) return { url: input.href };
  if ("url" in input && (typeof input.url === "string" || input.url instanceof URL))
    return { url: String(input.url) };
  const field = "field" in input && typeof input.field === "string" ? { field: input.field } : {};
  if ("path" in input && typeof input.path === "string") {
    return { blob: await platform.openPath(input.path), name: input.name ?? baseName(input.path), ...field };
  }
  if ("data" in input && "name" in input && typeof input.name === "string") {
    return { blob: await toBlob(input.data, platform), name: input.name, ...field };
  }
  const blob = await toBlob(input, platform);
  const named =
    typeof File !== "undefined" && blob instanceof File && blob.name !== "" ? blob.name : undefined;
  return { blob, name: named ?? defaultName(index, extensions, operation) };
}

/** The inputs, read as far as needed to send them (streams are collected: a retry must resend them). */
export async function readInputs(
  files: Files,
  extensions: readonly string[],
  operation: string,
  platform: Platform,
): Promise<Part[]> {
  const list: readonly FileInput[] = Array.isArray(files) ? files : [files as FileInput];
  return Promise.all(list.map((input, index) => toPart(input, index, extensions, operation, platform)));
}

/** The fields sent beside the inputs. */
export interface Fields {
  /** The operation's options (`options`) or a pipeline's steps (`steps`). */
  [name: string]: unknown;
}

/** How far an upload has got. */
export interface UploadProgress {
  /** Bytes of the files sent so far. */
  sent: number;
  /** Bytes of the files in all. */
  total: number;
}

/**
 * The request body: JSON (form B) when every input is a URL, else multipart (form A) with the files
 * and URLs in order (and the named uploads in their fields). With `onProgress`, the multipart body is streamed so the bytes sent can be counted.
 */
export function requestBody(
  parts: readonly Part[],
  fields: Fields,
  onProgress?: (progress: UploadProgress) => void,
): Body {
  const present = Object.entries(fields).filter(([, value]) => value !== undefined);
  if (parts.every((part) => "url" in part)) {
    const urls = parts.map((part) => ("url" in part ? part.url : ""));
    const inputs = urls.length === 1 ? { url: urls[0] } : urls.length > 1 ? { urls } : {};
    return {
      body: JSON.stringify({ ...inputs, ...Object.fromEntries(present) }),
      headers: { "content-type": "application/json" },
    };
  }
  const form = new FormData();
  for (const part of parts) {
    if ("url" in part) form.append("url", part.url);
    else form.append(part.field ?? "file", part.blob, part.name);
  }
  for (const [name, value] of present)
    form.append(name, typeof value === "string" ? value : JSON.stringify(value));
  if (!onProgress) return { body: form };
  return countedBody(form, parts, onProgress);
}

function countedBody(
  form: FormData,
  parts: readonly Part[],
  onProgress: (progress: UploadProgress) => void,
): Body {
  const encoded = new Response(form);
  const total = parts.reduce((sum, part) => sum + ("blob" in part ? part.blob.size : 0), 0);
  let sent = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      sent += chunk.byteLength;
      onProgress({ sent: Math.min(sent, total), total });
      controller.enqueue(chunk);
    },
  });
  const contentType = encoded.headers.get("content-type") ?? "multipart/form-data";
  if (!encoded.body) return { body: form };
  return { body: encoded.body.pipeThrough(counter), headers: { "content-type": contentType } };
}
