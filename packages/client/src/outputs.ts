import { apiErrorFor, OctavoError } from "./errors.js";
import type { Platform } from "./platform.js";
import type { ApiJob, ApiOutput } from "./types.js";

/** Where `download` writes: a path (Node.js; a directory gets the output's name), or a writable stream. */
export type DownloadTarget = string | WritableStream<Uint8Array> | NodeWritableLike;

/** A Node.js `Writable` (fs.createWriteStream, process.stdout), accepted by the Node entry. */
export interface NodeWritableLike {
  /** Writes a chunk. */
  write(chunk: Uint8Array): unknown;
  /** Ends the stream. */
  end(): unknown;
  /** Listens for an event ("finish", "error"). */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** An output of a done job, with its download link's methods. */
export interface OutputFile extends ApiOutput {
  /**
   * Downloads the output to a path or a stream; resolves with the path written (for a path).
   * A path ending in "/" or naming an existing directory receives the file under its own `name`.
   */
  download(target: DownloadTarget): Promise<string | undefined>;
  /** The output's bytes, in memory. */
  bytes(): Promise<Uint8Array>;
  /** The output as a stream, to pass on without holding it in memory. */
  stream(): Promise<ReadableStream<Uint8Array>>;
}

/** A job, with download methods on its outputs. */
export type Job = Omit<ApiJob, "outputs"> & { outputs?: OutputFile[] };
/** A job that ended `done`: its outputs are there. */
export type DoneJob = Job & { status: "done"; outputs: OutputFile[] };

async function fetchOutput(output: ApiOutput, fetcher: typeof fetch): Promise<ReadableStream<Uint8Array>> {
  if (output.url === undefined) {
    throw new OctavoError({
      error: "result_expired",
      message: `${output.name} is no longer available: results are deleted an hour after the job.`,
    });
  }
  const response = await fetcher(output.url);
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as Record<string, string | undefined>;
    throw apiErrorFor({
      status: response.status,
      error: body.error ?? `http_${response.status}`,
      message: body.message ?? `Downloading ${output.name} answered HTTP ${response.status}.`,
      detail: body.detail,
      requestId: body.requestId ?? response.headers.get("x-request-id") ?? undefined,
    });
  }
  return response.body;
}

function outputFile(output: ApiOutput, fetcher: typeof fetch, platform: Platform): OutputFile {
  return {
    ...output,
    stream: () => fetchOutput(output, fetcher),
    async bytes() {
      return new Uint8Array(await new Response(await fetchOutput(output, fetcher)).arrayBuffer());
    },
    async download(target) {
      const body = await fetchOutput(output, fetcher);
      if (target instanceof WritableStream) {
        await body.pipeTo(target);
        return undefined;
      }
      const written = platform.write(target, body, output.name);
      if (written === undefined) {
        await body.cancel();
        throw new TypeError(
          "download() takes a WritableStream here; paths and Node.js streams need Node.js.",
        );
      }
      return written;
    },
  };
}

/** The job with download methods on its outputs. */
export function withOutputFiles(job: ApiJob, fetcher: typeof fetch, platform: Platform): Job {
  const { outputs, ...rest } = job;
  return outputs === undefined
    ? rest
    : { ...rest, outputs: outputs.map((output) => outputFile(output, fetcher, platform)) };
}
