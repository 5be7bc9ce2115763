import type { JobFileRow } from "@octavo/db";

export interface DownloadLink {
  url: string;
  expiresAt: string;
}

/** How an output's expiring download link is made (GET /v1/jobs/{id} and the webhook body). */
export interface DownloadLinks {
  link(file: JobFileRow, now: Date): Promise<DownloadLink>;
}

/** Signs a GET of one stored object for a while (an S3 store's presignGet). */
export type PresignGet = (
  key: string,
  options: { expiresInSeconds: number; downloadName: string; contentType: string },
) => Promise<string>;

/**
 * Presigned GET URLs straight from the object store (OCTAVO_DOWNLOAD_LINKS=presigned): downloads
 * skip the API nodes. They expire after the same link lifetime as the API's own links.
 */
export class PresignedDownloadLinks implements DownloadLinks {
  constructor(
    private readonly presign: PresignGet,
    private readonly ttlSeconds: number,
  ) {}

  async link(file: JobFileRow, now: Date): Promise<DownloadLink> {
    const url = await this.presign(file.storage_key, {
      expiresInSeconds: this.ttlSeconds,
      downloadName: file.name,
      contentType: file.content_type,
    });
    return { url, expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000).toISOString() };
  }
}
