import { testModeLimits } from "@octavo/contracts";
import type { ApiKeySummary } from "@octavo/core";
import type { KeyMode } from "@octavo/db";
import { BASE } from "../session.js";
import { when } from "./format.js";
import { Csrf, Field, Layout, Notice } from "./layout.js";
import { Table } from "./table.js";

export function KeysPage(props: {
  csrf: string;
  email: string;
  keys: readonly ApiKeySummary[];
  created?: { apiKey: string; label: string | null; mode: KeyMode };
  notice?: string | undefined;
}) {
  const active = props.keys.filter((key) => !key.revokedAt);
  const revoked = props.keys.filter((key) => key.revokedAt);
  return (
    <Layout title="API keys" email={props.email} section="/keys" csrf={props.csrf}>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.created && (
        <section class="reveal" aria-labelledby="new-key">
          <h2 id="new-key">
            Your new {props.created.mode === "test" ? "test " : ""}key
            {props.created.label ? ` “${props.created.label}”` : ""}
          </h2>
          <p class="warning">
            Copy it now and keep it somewhere safe: it is shown this once. We store only a hash of it.
          </p>
          <div class="secret">
            <code id="new-key-value">{props.created.apiKey}</code>
            <button type="button" data-copy="new-key-value">
              Copy
            </button>
          </div>
        </section>
      )}
      <p>
        An API key acts for your whole account. Keep keys in server code or a secret manager, never in a web
        page, a mobile app or a repository: anyone who can read a key can spend your credits. Send it as{" "}
        <code>Authorization: Bearer svc_live_…</code>.
      </p>
      <p>
        A test key (<code>svc_test_…</code>) runs every operation with the real engines for free, to build and
        test an integration: each output is stamped “octavo test mode”, an input may have at most{" "}
        {testModeLimits.pagesPerInput} pages, the account may send {testModeLimits.jobsPerMinute} test jobs a
        minute, and outputs are kept one hour. Test jobs are seen only with test keys, and live jobs only with
        live ones.
      </p>
      <h2>Keys</h2>
      {active.length === 0 ? (
        <p>You have no active key yet. Create one below.</p>
      ) : (
        <KeyTable keys={active} />
      )}
      <h2>Create a key</h2>
      <form method="post" action={`${BASE}/keys`} class="stack">
        <Csrf token={props.csrf} />
        <Field name="label" label="Label (optional)" hint="Where the key is used, e.g. “billing server”." />
        <fieldset class="choice">
          <legend>Mode</legend>
          <label>
            <input type="radio" name="mode" value="live" checked /> Live: real jobs, charged in credits
          </label>
          <label>
            <input type="radio" name="mode" value="test" /> Test: free jobs, outputs stamped “octavo test
            mode”
          </label>
        </fieldset>
        <button type="submit">Create key</button>
      </form>
      {revoked.length > 0 && (
        <>
          <h2>Revoked keys</h2>
          <KeyTable keys={revoked} />
        </>
      )}
    </Layout>
  );
}

function KeyTable({ keys }: { keys: readonly ApiKeySummary[] }) {
  return (
    <Table columns={["Label", "Key", "Mode", "Created", "Last used", ""]}>
      {keys.map((key) => (
        <tr key={key.id} data-key={key.prefix}>
          <td>{key.label ?? "—"}</td>
          <td>
            <code>{key.prefix}…</code>
          </td>
          <td>
            <span class={`mode ${key.mode}`}>{key.mode}</span>
          </td>
          <td>{when(key.createdAt)}</td>
          <td>{when(key.lastUsedAt)}</td>
          <td>
            {key.revokedAt ? (
              `Revoked ${when(key.revokedAt)}`
            ) : (
              <a href={`${BASE}/keys/${key.id}/revoke`}>Revoke…</a>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}

export function RevokeKeyPage(props: { csrf: string; email: string; key: ApiKeySummary }) {
  return (
    <Layout title="Revoke this key?" email={props.email} section="/keys" csrf={props.csrf}>
      <p>
        The key <code>{props.key.prefix}…</code>
        {props.key.label ? ` (“${props.key.label}”)` : ""} will stop working at once: every request made with
        it will be refused with <code>401</code>. This cannot be undone.
      </p>
      <form method="post" action={`${BASE}/keys/${props.key.id}/revoke`} class="actions">
        <Csrf token={props.csrf} />
        <button type="submit" class="danger">
          Revoke key
        </button>
        <a href={`${BASE}/keys`}>Cancel</a>
      </form>
    </Layout>
  );
}
