import { fileURLToPath } from "node:url";
import { kyselyOf } from "@octavo/db/repositories";
import { waitFor } from "@octavo/testing";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, submitForm } from "./support/browser.js";
import { Client } from "./support/client.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

const pdf = fileURLToPath(new URL("../../../examples/sample-a.pdf", import.meta.url));
const PASSWORD = "correct horse battery staple";

describe("the customer dashboard, in Debian's Chromium", () => {
  let stack: Stack;
  let browser: Browser;
  let receiver: LocalServer;
  const base = () => `${stack.baseUrl}/dashboard`;

  beforeAll(async () => {
    receiver = await startLocalServer((_req, res) => res.writeHead(204).end());
    // Webhooks to the test's own receiver on loopback, which the outbound policy otherwise refuses.
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${receiver.port}` },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await receiver?.close();
  });

  /** A fresh browser profile (its own cookies), signed up as a new customer. */
  async function signUp(email: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.goto(`${base()}/signup`);
    await submitForm(page, "/dashboard/signup", { email, password: PASSWORD });
    return { context, page };
  }
  const text = (page: Page, selector: string) => page.$eval(selector, (element) => element.textContent ?? "");
  const accountIdOf = async (email: string) =>
    (
      await kyselyOf(stack.runtime.database)
        .selectFrom("accounts")
        .select("id")
        .where("email", "=", email)
        .executeTakeFirstOrThrow()
    ).id;

  it("signs a customer up, creates a key that works against the API, then revokes it", async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const first = await page.goto(`${base()}/signup`);
    // Strict headers: only the dashboard's own script and stylesheet, no framing, nothing cached.
    expect(first?.headers()).toMatchObject({
      "x-frame-options": "DENY",
      "cache-control": "no-store",
      "content-security-policy": expect.stringContaining("script-src 'self'"),
    });
    // A too-short password: the error sits next to the field, tied to it for screen readers.
    await submitForm(page, "/dashboard/signup", { email: "ada@example.com", password: "short" });
    expect(await text(page, "#field-password-error")).toMatch(/at least 12 characters/i);
    expect(await page.$eval("#field-password", (input) => input.getAttribute("aria-describedby"))).toContain(
      "field-password-error",
    );
    await submitForm(page, "/dashboard/signup", { email: "ada@example.com", password: PASSWORD });
    expect(page.url()).toBe(`${base()}/keys?welcome=1`);
    await screenshot(page, "signed-up");

    // The session cookie: HttpOnly, SameSite=Lax, scoped to the dashboard.
    const cookie = (await page.cookies()).find((entry) => entry.name === "octavo_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/dashboard" });

    await submitForm(page, "/dashboard/keys", { label: "billing server" });
    const apiKey = (await text(page, "#new-key-value")).trim();
    expect(apiKey).toMatch(/^svc_live_/);
    expect(await text(page, ".reveal .warning")).toMatch(/shown this once/);
    await screenshot(page, "keys");

    // The key works against the API, from an ordinary HTTP client.
    const client = new Client(stack.baseUrl, apiKey);
    expect((await client.get("/v1/account")).body).toMatchObject({ plan: "free" });
    const job = await client.waitForJob(
      (await client.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 })).body.id as string,
    );
    expect(job.status).toBe("done");

    // The job and its credit show up in the dashboard.
    await page.goto(base());
    expect(await text(page, ".figures")).toMatch(/Credits used\s*1\s*of 100/);
    expect(await page.$$eval(".chart rect.bar", (bars) => bars.length)).toBeGreaterThanOrEqual(28);
    await screenshot(page, "overview");
    await page.goto(`${base()}/jobs?status=done`);
    expect(await text(page, `tr[data-job="${job.id}"]`)).toMatch(/rotate\s*done\s*1/);
    const link = await page.$eval(`tr[data-job="${job.id}"] a.download`, (a) => a.getAttribute("href") ?? "");
    const download = await client.download(link);
    expect(download.status).toBe(200);
    expect(download.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    await screenshot(page, "jobs");

    // Revoking asks first, then the API refuses the key.
    await page.goto(`${base()}/keys`);
    await Promise.all([page.waitForNavigation(), page.click("a[href$='/revoke']")]);
    expect(await text(page, "h1")).toBe("Revoke this key?");
    await submitForm(page, page.url().replace(stack.baseUrl, ""));
    expect(page.url()).toBe(`${base()}/keys?revoked=1`);
    expect((await client.get("/v1/account")).status).toBe(401);

    // Signing out ends the session: the pages go back to the sign-in form.
    await submitForm(page, "/dashboard/signout");
    await page.goto(`${base()}/keys`);
    expect(page.url()).toBe(`${base()}/signin`);
    await context.close();
  });

  it("reveals and rotates the webhook secret, lists deliveries and re-sends one", async () => {
    const email = "grace@example.com";
    const { context, page } = await signUp(email);
    const accountId = await accountIdOf(email);
    await stack.runtime.accounts.setPlan(accountId, "starter"); // webhooks are a paid-plan feature
    const before = await stack.runtime.accounts.webhookSecret(accountId);

    await page.goto(`${base()}/webhooks`);
    expect(await page.$("#webhook-secret")).toBeNull(); // not in the page until asked for
    await submitForm(page, "/dashboard/webhooks/reveal");
    expect((await text(page, "#webhook-secret")).trim()).toBe(before);

    await page.goto(`${base()}/webhooks/rotate`);
    await submitForm(page, "/dashboard/webhooks/rotate");
    const after = (await text(page, "#webhook-secret")).trim();
    expect(after).not.toBe(before);
    expect(await stack.runtime.accounts.signingSecrets(accountId)).toEqual([after, before]);
    await screenshot(page, "webhooks-rotated");

    // A job with a webhook: its delivery and the receiver's answer appear, and it can be sent again.
    const { apiKey } = await stack.runtime.accounts.createKey(accountId, "webhooks test");
    const client = new Client(stack.baseUrl, apiKey);
    const created = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      { angle: 90 },
      {
        webhook_url: `${receiver.url}/hook`,
      },
    );
    await client.waitForJob(created.body.id as string);
    await waitFor("the first delivery", () => (receiver.requests.length === 1 ? true : undefined));
    await waitFor("the delivery to be recorded", async () => {
      await page.goto(`${base()}/webhooks`);
      return (await page.$("form[action*='/resend'] button")) ? true : undefined;
    });
    expect(await text(page, "table")).toMatch(/delivered/);
    expect(await text(page, ".attempts")).toContain("204");
    await Promise.all([page.waitForNavigation(), page.click("form[action*='/resend'] button")]);
    expect(page.url()).toBe(`${base()}/webhooks?resent=1`);
    await waitFor("the re-sent delivery", () => (receiver.requests.length === 2 ? true : undefined));
    const jobIdOf = (index: number) => JSON.parse(receiver.requests[index]?.body ?? "{}").id;
    expect(jobIdOf(1)).toBe(created.body.id);
    expect(receiver.requests[1]?.headers["svc-webhook-id"]).not.toBe(
      receiver.requests[0]?.headers["svc-webhook-id"],
    );
    await screenshot(page, "webhooks");
    await context.close();
  });

  it("shows a customer only their own jobs and keys", async () => {
    const first = await signUp("first@example.com");
    await submitForm(first.page, "/dashboard/keys", { label: "first" });
    const apiKey = (await text(first.page, "#new-key-value")).trim();
    const client = new Client(stack.baseUrl, apiKey);
    const job = await client.waitForJob(
      (await client.postFiles("/v1/rotate", [{ path: pdf }], { angle: 180 })).body.id as string,
    );
    const firstKeyId = (await stack.runtime.accounts.listKeys(await accountIdOf("first@example.com")))[0]?.id;

    const second = await signUp("second@example.com");
    await second.page.goto(`${base()}/jobs`);
    expect(await second.page.$(`tr[data-job="${job.id}"]`)).toBeNull();
    expect(await text(second.page, "main")).toMatch(/No jobs yet/);
    // Another customer's key cannot even be offered for revocation.
    await second.page.goto(`${base()}/keys/${firstKeyId}/revoke`);
    expect(second.page.url()).toBe(`${base()}/keys`);
    expect((await client.get("/v1/account")).status).toBe(200);
    await screenshot(second.page, "isolation");
    await first.context.close();
    await second.context.close();
  });

  it("creates a test key, whose jobs show under test data only, counted there and never charged", async () => {
    const { context, page } = await signUp("tester@example.com");
    await page.click('input[name="mode"][value="test"]');
    await submitForm(page, "/dashboard/keys", { label: "sandbox" });
    const apiKey = (await text(page, "#new-key-value")).trim();
    expect(apiKey).toMatch(/^svc_test_/);
    expect(await text(page, "#new-key")).toMatch(/Your new test key/);
    expect(await text(page, `tr[data-key="${apiKey.slice(0, 17)}"]`)).toMatch(/sandbox.*test/);
    await screenshot(page, "test-key");

    const client = new Client(stack.baseUrl, apiKey);
    const job = await client.waitForJob(
      (await client.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 })).body.id as string,
    );
    expect(job).toMatchObject({ status: "done", livemode: false });

    // Live data, the default: neither the job nor its credit.
    await page.goto(`${base()}/jobs`);
    expect(await page.$(`tr[data-job="${job.id}"]`)).toBeNull();
    await page.goto(base());
    expect(await text(page, ".figures")).toMatch(/Credits used\s*0\s*of 100/);
    // The switch keeps the page: test data's overview counts the job, charged nothing.
    await Promise.all([page.waitForNavigation(), page.click(".mode-switch a:last-child")]);
    expect(page.url()).toBe(`${base()}?mode=test`);
    expect(await text(page, ".test-banner")).toMatch(/stamped “octavo test mode”/);
    expect(await text(page, ".figures")).toMatch(/Test jobs this month\s*1\s*Done\s*1/);
    expect(await text(page, ".figures")).toMatch(/Credits charged\s*0\s*live, these would have cost 1/);
    await screenshot(page, "test-overview");
    // The navigation keeps test data; its job list has the job and its download.
    await Promise.all([page.waitForNavigation(), page.click('.top nav a[href^="/dashboard/jobs"]')]);
    expect(page.url()).toBe(`${base()}/jobs?mode=test`);
    expect(await text(page, `tr[data-job="${job.id}"]`)).toMatch(/rotate\s*done/);
    const link = await page.$eval(`tr[data-job="${job.id}"] a.download`, (a) => a.getAttribute("href") ?? "");
    expect((await client.download(link)).status).toBe(200);
    await screenshot(page, "test-jobs");
    await context.close();
  });

  it("works at phone width", async () => {
    const { context, page } = await signUp("phone@example.com");
    await page.setViewport({ width: 375, height: 740 });
    for (const path of ["", "/keys", "/webhooks", "/jobs", "/plan"]) {
      await page.goto(`${base()}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await screenshot(page, "plan-phone");
    await context.close();
  });

  describe("the forms' security", () => {
    it("refuses a form without its CSRF token", async () => {
      const { context, page } = await signUp("csrf@example.com");
      // The customer's own browser and session, but the form lost its token (as a forged form would lack it).
      await page.$eval('form[action="/dashboard/keys"] input[name="_csrf"]', (input) => input.remove());
      const [response] = await Promise.all([
        page.waitForNavigation(),
        page.click('form[action="/dashboard/keys"] button[type=submit]'),
      ]);
      expect(response?.status()).toBe(403);
      expect(await text(page, "main")).toContain("This form expired");
      await screenshot(page, "csrf-refused");
      expect(await stack.runtime.accounts.listKeys(await accountIdOf("csrf@example.com"))).toHaveLength(0);
      await context.close();
    });

    it("throttles wrong passwords, even when the right one comes next", async () => {
      const { context } = await signUp("throttle@example.com");
      await context.close();
      const attempt = async (password: string) => {
        const guest = await browser.createBrowserContext();
        const page = await guest.newPage();
        await page.goto(`${base()}/signin`);
        await submitForm(page, "/dashboard/signin", { email: "throttle@example.com", password });
        const outcome = {
          url: page.url(),
          notice: (await page.$(".notice.error")) ? await text(page, ".notice.error") : "",
        };
        if (password === PASSWORD) await screenshot(page, "sign-in-throttled");
        await guest.close();
        return outcome;
      };
      for (let tries = 0; tries < 5; tries += 1) {
        expect((await attempt("wrong password, surely")).notice).toBe("The email or password is not right.");
      }
      const blocked = await attempt(PASSWORD);
      expect(blocked.notice).toMatch(/Too many failed attempts/);
      expect(blocked.url).toBe(`${base()}/signin`);
    });

    it("gives a new session id at every sign-in (no session fixation)", async () => {
      const { context, page } = await signUp("fixation@example.com");
      const sessionId = async () =>
        (await page.cookies()).find((cookie) => cookie.name === "octavo_session")?.value;
      const first = await sessionId();
      // A session id planted before sign-in is never adopted: sign-in issues its own.
      await page.setCookie({
        name: "octavo_session",
        value: "planted-by-attacker",
        domain: "127.0.0.1",
        path: "/dashboard",
      });
      await page.goto(`${base()}/signin`);
      await submitForm(page, "/dashboard/signin", { email: "fixation@example.com", password: PASSWORD });
      expect(page.url()).toBe(base());
      const second = await sessionId();
      expect(second).toBeDefined();
      expect([first, "planted-by-attacker"]).not.toContain(second);
      await screenshot(page, "signed-in-again");
      await context.close();
    });
  });
});
