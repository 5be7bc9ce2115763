import type { Usage } from "@octavo/core";
import { CreditsChart } from "./chart.js";
import { Layout } from "./layout.js";

const number = new Intl.NumberFormat("en-US");
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function OverviewPage(props: {
  csrf: string;
  email: string;
  planName: string;
  paid: boolean;
  usage: Usage;
  days: readonly { day: string; credits: number }[];
}) {
  const { usage } = props;
  // periodEnd is the next month's first instant: the last day of this period is the day before.
  const day = (ms: number) =>
    new Date(ms).toLocaleDateString("en-GB", {
      day: "numeric",
      month: "long",
      year: "numeric",
      timeZone: "UTC",
    });
  const lastDay = day(Date.parse(usage.periodEnd) - 1);
  const resets = day(Date.parse(usage.periodEnd));
  return (
    <Layout title="Overview" email={props.email} section="" csrf={props.csrf}>
      <dl class="figures">
        <div>
          <dt>Plan</dt>
          <dd>{props.planName}</dd>
        </div>
        <div>
          <dt>Credits used</dt>
          <dd>
            {number.format(usage.creditsUsed)}{" "}
            <span class="of">of {number.format(usage.creditsIncluded)}</span>
          </dd>
        </div>
        <div>
          <dt>Reserved by running jobs</dt>
          <dd>{number.format(usage.creditsReserved)}</dd>
        </div>
        <div>
          <dt>Remaining</dt>
          <dd>{number.format(usage.creditsRemaining)}</dd>
        </div>
        {props.paid && (
          <div>
            <dt>Overage</dt>
            <dd>
              {number.format(usage.overageCredits)} credits{" "}
              <span class="of">≈ {usd.format(usage.overageCostUsd)}</span>
            </dd>
          </div>
        )}
        <div>
          <dt>Period ends</dt>
          <dd>
            {lastDay} <span class="of below">credits reset {resets}, 00:00 UTC</span>
          </dd>
        </div>
      </dl>
      <CreditsChart days={props.days} />
    </Layout>
  );
}
