import { type PlanId, planIds, plans } from "@octavo/contracts";
import { Layout } from "./layout.js";

const number = new Intl.NumberFormat("en-US");

export function PlansPage(props: { csrf: string; email: string; current: PlanId; accountId: string }) {
  return (
    <Layout title="Plan" email={props.email} section="/plan" csrf={props.csrf}>
      <div class="plans">
        {planIds.map((id) => {
          const plan = plans[id];
          const current = id === props.current;
          return (
            <section key={id} class={current ? "plan current" : "plan"} aria-labelledby={`plan-${id}`}>
              <h2 id={`plan-${id}`}>
                {plan.name} {current && <span class="badge">Your plan</span>}
              </h2>
              <p class="price">
                {plan.priceUsdPerMonth === 0 ? "Free" : `$${plan.priceUsdPerMonth} a month`}
              </p>
              <ul>
                <li>{number.format(plan.creditsPerMonth)} credits a month</li>
                <li>
                  {plan.overageUsdPer1000Credits === null
                    ? "Stops at the monthly credits"
                    : `Then $${plan.overageUsdPer1000Credits} per 1,000 credits`}
                </li>
                <li>{plan.requestsPerMinute} requests a minute</li>
                <li>Files up to {plan.maxFileBytes / (1024 * 1024)} MB</li>
                <li>{plan.webhooks ? "Webhooks" : "No webhooks"}</li>
              </ul>
            </section>
          );
        })}
      </div>
      <p>
        To change your plan, write to your octavo operator with your account id <code>{props.accountId}</code>
        . They change it with <code>octavo accounts set-plan</code>; the new limits apply at once.
      </p>
    </Layout>
  );
}
