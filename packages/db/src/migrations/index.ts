import type { Migration, MigrationProvider } from "kysely/migration";
import * as initial from "./001-initial.js";
import * as idempotencyWebhooks from "./002-idempotency-webhooks.js";
import * as jobResults from "./003-job-results.js";
import * as dashboard from "./004-dashboard.js";
import * as fairQueues from "./005-fair-queues.js";
import * as requestIds from "./006-request-ids.js";
import * as jobListing from "./007-job-listing.js";
import * as deletedResults from "./008-deleted-results.js";
import * as pipelineSteps from "./009-pipeline-steps.js";
import * as namedInputs from "./010-named-inputs.js";
import * as testMode from "./011-test-mode.js";

/** A static record: migrations ship inside the build, in order, with no file-system scan. */
const migrations: Record<string, Migration> = {
  "001-initial": initial,
  "002-idempotency-webhooks": idempotencyWebhooks,
  "003-job-results": jobResults,
  "004-dashboard": dashboard,
  "005-fair-queues": fairQueues,
  "006-request-ids": requestIds,
  "007-job-listing": jobListing,
  "008-deleted-results": deletedResults,
  "009-pipeline-steps": pipelineSteps,
  "010-named-inputs": namedInputs,
  "011-test-mode": testMode,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
