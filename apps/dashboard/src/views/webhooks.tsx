import type { WebhookAttemptRow, WebhookDeliveryRow } from "@octavo/db";
import { BASE } from "../session.js";
import { when } from "./format.js";
import { Csrf, Layout, Notice } from "./layout.js";
import { Table } from "./table.js";

export interface DeliveryView {
  delivery: WebhookDeliveryRow;
  attempts: readonly WebhookAttemptRow[];
}

export function WebhooksPage(props: {
  csrf: string;
  email: string;
  webhooksInPlan: boolean;
  /** Shown after "Reveal" or a rotation; otherwise the page never carries the secret. */
  secret?: { value: string; previousValidUntil?: string } | undefined;
  deliveries: readonly DeliveryView[];
  notice?: string | undefined;
}) {
  return (
    <Layout title="Webhooks" email={props.email} section="/webhooks" csrf={props.csrf}>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {!props.webhooksInPlan && (
        <p class="warning">
          Webhooks come with the paid plans; on Free, poll <code>GET /v1/jobs/{"{id}"}</code> instead (see
          Plan).
        </p>
      )}
      <p>
        When a job sent with <code>webhook_url</code> ends, we POST the job to that URL with an{" "}
        <code>SVC-Signature</code> header: an HMAC-SHA256 of the body made with your signing secret. Check it
        before you trust a delivery.
      </p>
      <h2>Signing secret</h2>
      {props.secret ? (
        <section class="reveal" aria-label="Signing secret">
          <div class="secret">
            <code id="webhook-secret">{props.secret.value}</code>
            <button type="button" data-copy="webhook-secret">
              Copy
            </button>
          </div>
          {props.secret.previousValidUntil && (
            <p>
              The previous secret keeps signing, next to this one, until{" "}
              {when(props.secret.previousValidUntil)}: switch your receiver before then.
            </p>
          )}
        </section>
      ) : (
        <form method="post" action={`${BASE}/webhooks/reveal`} class="actions">
          <Csrf token={props.csrf} />
          <button type="submit">Reveal secret</button>
        </form>
      )}
      <p>
        <a href={`${BASE}/webhooks/rotate`}>Rotate the secret…</a>
      </p>
      <h2>Recent deliveries</h2>
      {props.deliveries.length === 0 ? (
        <p>No deliveries yet.</p>
      ) : (
        <Table columns={["Sent", "Job", "URL", "Status", "Attempts", ""]}>
          {props.deliveries.map(({ delivery, attempts }) => (
            <tr key={delivery.id}>
              <td>{when(delivery.created_at)}</td>
              <td>
                <code>{delivery.job_id.slice(0, 8)}</code>
              </td>
              <td class="url">{delivery.url}</td>
              <td>{delivery.status}</td>
              <td>
                <ol class="attempts">
                  {attempts.map((attempt) => (
                    <li key={attempt.id}>{attempt.status_code ?? attempt.error ?? "no answer"}</li>
                  ))}
                </ol>
              </td>
              <td>
                {delivery.status !== "pending" && (
                  <form method="post" action={`${BASE}/webhooks/deliveries/${delivery.id}/resend`}>
                    <Csrf token={props.csrf} />
                    <button type="submit">Re-send</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Layout>
  );
}

export function RotateSecretPage(props: { csrf: string; email: string }) {
  return (
    <Layout title="Rotate the signing secret?" email={props.email} section="/webhooks" csrf={props.csrf}>
      <p>
        A new secret signs every delivery from now on. The current one keeps signing next to it for 24 hours,
        so you can update your receiver without missing a delivery.
      </p>
      <form method="post" action={`${BASE}/webhooks/rotate`} class="actions">
        <Csrf token={props.csrf} />
        <button type="submit" class="danger">
          Rotate secret
        </button>
        <a href={`${BASE}/webhooks`}>Cancel</a>
      </form>
    </Layout>
  );
}
