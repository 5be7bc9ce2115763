import type { TestUsage, Usage } from "@octavo/core";
import type { ComponentChildren } from "preact";
import { CreditsChart } from "./chart.js";
import { Layout } from "./layout.js";

const number = new Intl.NumberFormat("en-US");
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const day = (ms: number) =>
  new Date(ms).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
/** periodEnd is the next month's first instant: the period's last day is the day before. */
const lastDayOf = (periodEnd: string) => day(Date.parse(periodEnd) - 1);

export function OverviewPage(props: {
  csrf: string;
  email: string;
  planName: string;
  paid: boolean;
  usage: Usage;
  days: readonly { day: string; credits: number }[];
}) {
  const { usage } = props;
  const lastDay = lastDayOf(usage.periodEnd);
  const resets = day(Date.parse(usage.periodEnd));
  return (
    <Layout
      title="Overview"
      email={props.email}
      section=""
      csrf={props.csrf}
      mode={{ shown: "live", path: "" }}
    >
      <dl class="figures">
        <Figure label="Plan">{props.planName}</Figure>
        <Figure label="Credits used">
          {number.format(usage.creditsUsed)} <span class="of">of {number.format(usage.creditsIncluded)}</span>
        </Figure>
        <Figure label="Reserved by running jobs">{number.format(usage.creditsReserved)}</Figure>
        <Figure label="Remaining">{number.format(usage.creditsRemaining)}</Figure>
        {props.paid && (
          <Figure label="Overage">
            {number.format(usage.overageCredits)} credits{" "}
            <span class="of">≈ {usd.format(usage.overageCostUsd)}</span>
          </Figure>
        )}
        <Figure label="Period ends">
          {lastDay} <span class="of below">credits reset {resets}, 00:00 UTC</span>
        </Figure>
      </dl>
      <CreditsChart days={props.days} />
    </Layout>
  );
}

/** Test mode's month, counted from the test keys' jobs: they are never charged, so there is no chart of credits. */
export function TestOverviewPage(props: { csrf: string; email: string; usage: TestUsage }) {
  const { usage } = props;
  return (
    <Layout
      title="Overview"
      email={props.email}
      section=""
      csrf={props.csrf}
      mode={{ shown: "test", path: "" }}
    >
      <dl class="figures">
        <Figure label="Test jobs this month">{number.format(usage.jobs)}</Figure>
        <Figure label="Done">{number.format(usage.done)}</Figure>
        <Figure label="Failed">{number.format(usage.failed)}</Figure>
        <Figure label="Queued or running">{number.format(usage.unfinished)}</Figure>
        <Figure label="Credits charged">
          0 <span class="of">live, these would have cost {number.format(usage.creditsNotCharged)}</span>
        </Figure>
        <Figure label="Period ends">{lastDayOf(usage.periodEnd)}</Figure>
      </dl>
    </Layout>
  );
}

/** One figure of the overview: a label over its value. */
function Figure({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
