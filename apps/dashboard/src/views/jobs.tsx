import type { JobStatus, KeyMode } from "@octavo/db";
import { BASE } from "../session.js";
import { duration, when } from "./format.js";
import { Layout } from "./layout.js";
import { Table } from "./table.js";

export interface JobRowView {
  id: string;
  operation: string;
  status: JobStatus;
  credits: number;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  durationMs: number | null;
  outputs: readonly { name: string; url?: string | undefined; expired: boolean }[];
}

export const STATUSES: readonly JobStatus[] = ["queued", "active", "done", "failed"];

export function JobsPage(props: {
  csrf: string;
  email: string;
  jobs: readonly JobRowView[];
  status: JobStatus | undefined;
  mode: KeyMode;
}) {
  const path = props.status ? `/jobs?status=${props.status}` : "/jobs";
  return (
    <Layout
      title="Jobs"
      email={props.email}
      section="/jobs"
      csrf={props.csrf}
      mode={{ shown: props.mode, path }}
    >
      <form method="get" action={`${BASE}/jobs`} class="filter">
        {props.mode === "test" && <input type="hidden" name="mode" value="test" />}
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="" selected={!props.status}>
            All
          </option>
          {STATUSES.map((status) => (
            <option key={status} value={status} selected={props.status === status}>
              {status}
            </option>
          ))}
        </select>
        <button type="submit">Filter</button>
      </form>
      {props.jobs.length === 0 ? (
        <p>
          No {props.mode === "test" ? "test " : ""}jobs{props.status ? ` with status ${props.status}` : ""}{" "}
          yet.
        </p>
      ) : (
        <Table columns={["Created", "Operation", "Status", "Credits", "Duration", "Result"]}>
          {props.jobs.map((job) => (
            <tr key={job.id} data-job={job.id}>
              <td>{when(job.createdAt)}</td>
              <td>{job.operation}</td>
              <td>
                <span class={`status ${job.status}`}>{job.status}</span>
              </td>
              <td>{job.credits}</td>
              <td>{duration(job.durationMs)}</td>
              <td>
                {job.status === "failed" && (
                  <span>
                    <code>{job.errorCode}</code> {job.errorMessage}
                  </span>
                )}
                {job.outputs.map((output) =>
                  output.url ? (
                    <a key={output.name} href={output.url} class="download">
                      {output.name}
                    </a>
                  ) : (
                    <span key={output.name} class="expired">
                      {output.name} (expired)
                    </span>
                  ),
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Layout>
  );
}
