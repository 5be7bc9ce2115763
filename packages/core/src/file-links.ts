import { createHmac } from "node:crypto";
import type { JobFileRow } from "@octavo/db";
import type { DownloadLink, DownloadLinks } from "./download-links.js";
import { deriveKey, safeEqualHex } from "./secrets.js";

/**
 * Download links: `/v1/files/<fileId>/<name>?expires=<unix>&signature=<hex>`, an HMAC over the file
 * id and the expiry. They need no API key, so they can be handed to a browser, and they cannot be
 * extended or pointed at another file without the server's secret.
 */
export class FileLinkSigner implements DownloadLinks {
  private readonly key: Buffer;

  constructor(
    secretKey: string,
    private readonly publicUrl: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = deriveKey(secretKey, "download-links");
  }

  private signature(fileId: string, expires: number): string {
    return createHmac("sha256", this.key).update(`${fileId}.${expires}`).digest("hex");
  }

  sign(fileId: string, name: string, now: Date): { url: string; expiresAt: string } {
    const expires = Math.floor(now.getTime() / 1000) + this.ttlSeconds;
    const query = new URLSearchParams({
      expires: String(expires),
      signature: this.signature(fileId, expires),
    });
    return {
      url: `${this.publicUrl}/v1/files/${fileId}/${encodeURIComponent(name)}?${query}`,
      expiresAt: new Date(expires * 1000).toISOString(),
    };
  }

  link(file: JobFileRow, now: Date): Promise<DownloadLink> {
    return Promise.resolve(this.sign(file.id, file.name, now));
  }

  verify(
    fileId: string,
    expiresParam: unknown,
    signatureParam: unknown,
    now: Date,
  ): "valid" | "forged" | "expired" {
    if (
      typeof expiresParam !== "string" ||
      typeof signatureParam !== "string" ||
      !/^\d{1,12}$/.test(expiresParam)
    ) {
      return "forged";
    }
    const expires = Number(expiresParam);
    if (!safeEqualHex(this.signature(fileId, expires), signatureParam)) return "forged";
    return expires * 1000 < now.getTime() ? "expired" : "valid";
  }
}
