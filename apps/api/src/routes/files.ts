import { pipeline } from "node:stream/promises";
import { ApiError } from "@octavo/contracts";
import { create as contentDisposition } from "content-disposition";
import { Router } from "express";
import type { ApiContext } from "../context.js";

/** Signed download links: no API key, an HMAC and an expiry instead (see FileLinkSigner). */
export function filesRouter(ctx: ApiContext): Router {
  const router = Router();
  router.get("/v1/files/:fileId/:name", async (req, res) => {
    const { fileId } = req.params;
    const verdict = ctx.links.verify(fileId, req.query.expires, req.query.signature, new Date());
    if (verdict === "forged") {
      throw new ApiError(
        "invalid_link",
        "This download link is not valid.",
        "Use the url of an output exactly as GET /v1/jobs/{id} returned it.",
      );
    }
    if (verdict === "expired") {
      throw new ApiError(
        "link_expired",
        "This download link has expired.",
        "Links last 15 minutes; read the job again (GET /v1/jobs/{id}) for a fresh one.",
      );
    }
    const file = await ctx.jobs.output(fileId);
    if (!file) throw new ApiError("not_found", "There is no such file.", "");
    if (file.deleted_at) {
      const deletedOnRequest = (await ctx.jobs.find(file.job_id))?.results_deleted_at;
      throw new ApiError(
        "result_expired",
        "This result has been deleted.",
        deletedOnRequest
          ? "The job's results were deleted at your request (DELETE /v1/jobs/{id}); run the job again."
          : "Results are kept for one hour after the job; run the job again.",
      );
    }
    const body = await ctx.store.get(file.storage_key);
    res.setHeader("Content-Type", file.content_type);
    res.setHeader("Content-Length", String(file.size));
    res.setHeader("Content-Disposition", contentDisposition(file.name));
    res.setHeader("Cache-Control", "private, no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    // A client that goes away mid-download (a closed tab, its own timeout) is not a fault of ours: the
    // response closes before the file has failed. A file that fails to stream first is one, and is thrown.
    let endedFirst: "client" | "storage" | undefined;
    res.once("close", () => {
      endedFirst ??= "client";
    });
    body.once("error", () => {
      endedFirst ??= "storage";
    });
    try {
      await pipeline(body, res);
    } catch (error) {
      if (endedFirst !== "client") throw error;
      ctx.logger.debug({ err: error, fileId }, "download ended early by the client");
    }
  });
  return router;
}
