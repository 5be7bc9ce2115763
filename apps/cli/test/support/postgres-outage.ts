import { postgresAdminUrl } from "@octavo/testing";
import pg from "pg";

/**
 * A real database outage through the real seam: the database takes no new connections and its open ones
 * (the pools' idle connections included) are closed. Resolves with the function that ends the outage
 * (once; calling it again does nothing).
 */
export async function refuseConnections(databaseUrl: string): Promise<() => Promise<void>> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  await admin.query(`alter database ${database} allow_connections false`);
  await admin.query(
    "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
    [database],
  );
  let ended = false;
  return async () => {
    if (ended) return;
    ended = true;
    try {
      await admin.query(`alter database ${database} allow_connections true`);
    } finally {
      await admin.end();
    }
  };
}
