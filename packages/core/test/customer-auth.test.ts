import { parseOptions, verify } from "@node-rs/argon2";
import { createDatabase, type DatabaseHandle, migrateToLatest } from "@octavo/db";
import { findAccountByEmail, findDashboardSession, kyselyOf } from "@octavo/db/repositories";
import { createTestDatabase, type DatabaseKind, type TempResource } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  AccountService,
  CustomerAuth,
  DUMMY_PASSWORD_HASH,
  hashSessionToken,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  PASSWORD_HASH_OPTIONS,
  SignInError,
  SignUpError,
} from "../src/index.js";

// The real argon2, watched: sign-in's cost is asserted as the verifications it runs, not as time.
vi.mock("@node-rs/argon2", async (importOriginal) => {
  const real = await importOriginal<typeof import("@node-rs/argon2")>();
  return { ...real, verify: vi.fn(real.verify) };
});
const verifications = vi.mocked(verify);

const secretKey = "k".repeat(43);
const DAY = 24 * 60 * 60 * 1000;
const t0 = new Date("2026-11-23T10:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const password = "correct horse battery";

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("password hashing parameters", () => {
  it("are OWASP's argon2id ones, and the dummy hash uses the same, so a miss costs what a hit does", () => {
    expect(PASSWORD_HASH_OPTIONS).toMatchObject({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    expect(parseOptions(DUMMY_PASSWORD_HASH)).toMatchObject({
      algorithm: 2, // argon2id
      memoryCost: PASSWORD_HASH_OPTIONS.memoryCost,
      timeCost: PASSWORD_HASH_OPTIONS.timeCost,
      parallelism: PASSWORD_HASH_OPTIONS.parallelism,
    });
  });
});

describe.each<DatabaseKind>(["sqlite", "postgres"])("CustomerAuth on %s", (kind) => {
  let resource: TempResource;
  let handle: DatabaseHandle;
  let accounts: AccountService;
  let auth: CustomerAuth;

  beforeAll(async () => {
    resource = await createTestDatabase(kind);
    handle = createDatabase(resource.url);
    await migrateToLatest(handle);
    accounts = new AccountService(handle, secretKey);
    auth = new CustomerAuth(handle, accounts);
  });

  afterAll(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  it("refuses bad emails and passwords with a message for the right field", async () => {
    const cases: [string, string, "email" | "password", string][] = [
      ["not-an-email", password, "email", "Enter an email address like name@example.com."],
      ["a b@example.com", password, "email", "Enter an email address like name@example.com."],
      [`${"x".repeat(250)}@example.com`, password, "email", "Enter an email address like name@example.com."],
      ["rules@example.com", "x".repeat(MIN_PASSWORD_LENGTH - 1), "password", "Use at least 12 characters."],
      ["rules@example.com", "", "password", "Use at least 12 characters."],
      // 11 characters, 22 UTF-16 units: characters are what counts.
      ["rules@example.com", "🔑".repeat(11), "password", "Use at least 12 characters."],
      ["rules@example.com", "x".repeat(MAX_PASSWORD_LENGTH + 1), "password", "Use at most 256 characters."],
    ];
    for (const [email, candidate, field, message] of cases) {
      const error = await rejection(auth.signUp(email, candidate, t0));
      expect(error).toBeInstanceOf(SignUpError);
      expect(error).toMatchObject({ field, message });
    }
    expect(await findAccountByEmail(kyselyOf(handle), "rules@example.com")).toBeUndefined();
  });

  it("signs up on the Free plan with no API key, stores only an argon2id hash, and signs in", async () => {
    const created = await auth.signUp("  New.Customer@Example.COM ", "🔑".repeat(12), t0);
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.expiresAt).toBe(at(7 * DAY).toISOString());

    const account = await findAccountByEmail(kyselyOf(handle), "new.customer@example.com");
    expect(account?.id).toBe(created.accountId);
    expect(account?.plan).toBe("free");
    expect(await accounts.listKeys(created.accountId)).toEqual([]);
    const stored = account?.password_hash ?? "";
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(stored).not.toContain("🔑");

    // The token is not stored; its SHA-256 is the session's id.
    const row = await findDashboardSession(kyselyOf(handle), hashSessionToken(created.token));
    expect(row).toMatchObject({ account_id: created.accountId, expires_at: created.expiresAt });
    const all = await kyselyOf(handle).selectFrom("dashboard_sessions").selectAll().execute();
    expect(JSON.stringify(all)).not.toContain(created.token);

    expect(await auth.session(created.token, t0)).toEqual({
      sessionId: hashSessionToken(created.token),
      accountId: created.accountId,
      email: "new.customer@example.com",
      plan: "free",
      expiresAt: created.expiresAt,
      renewed: false,
    });
    const signedIn = await auth.signIn("NEW.customer@example.com", "🔑".repeat(12), t0);
    expect(signedIn.accountId).toBe(created.accountId);
  });

  it("refuses a second account for an email, however it is written, and under a race", async () => {
    await auth.signUp("taken@example.com", password, t0);
    const error = await rejection(auth.signUp(" TAKEN@example.com", "another password!", t0));
    expect(error).toBeInstanceOf(SignUpError);
    expect(error).toMatchObject({
      field: "email",
      message: "An account with this email already exists; sign in instead.",
    });

    const results = await Promise.allSettled([
      auth.signUp("race@example.com", password, t0),
      auth.signUp("race@example.com", password, t0),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const loser = results.find((result) => result.status === "rejected");
    expect(loser?.status === "rejected" && loser.reason).toBeInstanceOf(SignUpError);
  });

  it("keeps the CLI's account creation as it was: an API key, no password", async () => {
    const created = await accounts.createAccount("operator-made@example.com", "pro", t0);
    expect(created.apiKey).toMatch(/^svc_live_/);
    expect((await accounts.listKeys(created.accountId)).map((key) => key.label)).toEqual(["default"]);
    expect(
      (await findAccountByEmail(kyselyOf(handle), "operator-made@example.com"))?.password_hash,
    ).toBeNull();
  });

  it("answers a wrong password, an unknown email and a password-less account with one error", async () => {
    await auth.signUp("signin@example.com", password, t0);
    await accounts.createAccount("cli-only@example.com", "free", t0);
    const attempts: [string, string][] = [
      ["signin@example.com", "correct horse batterY"],
      ["signin@example.com", ""],
      ["nobody@example.com", password],
      ["cli-only@example.com", password],
      ["cli-only@example.com", ""],
      ["not an email", password],
      ["signin@example.com", "x".repeat(10_000)],
    ];
    // Every failure runs exactly one argon2id verification, real or against the dummy hash, with the
    // parameters of a real one: never a quick answer, whatever the machine's load does to the clock.
    const costOf = (hash: string) => {
      const { memoryCost, timeCost, parallelism } = parseOptions(hash);
      return { memoryCost, timeCost, parallelism };
    };
    for (const [email, candidate] of attempts) {
      verifications.mockClear();
      const error = await rejection(auth.signIn(email, candidate, t0));
      expect(error).toBeInstanceOf(SignInError);
      expect(error.message).toBe("The email or password is not right.");
      const what = `${email} / ${candidate.length} characters`;
      expect(verifications, what).toHaveBeenCalledTimes(1);
      const hash = verifications.mock.calls[0]?.[0];
      if (typeof hash !== "string") throw new Error(`${what}: no verification against a stored hash`);
      expect(costOf(hash), what).toEqual({
        memoryCost: PASSWORD_HASH_OPTIONS.memoryCost,
        timeCost: PASSWORD_HASH_OPTIONS.timeCost,
        parallelism: PASSWORD_HASH_OPTIONS.parallelism,
      });
    }
    // The verification is real: the right password still signs in, through the same single call.
    verifications.mockClear();
    await auth.signIn("signin@example.com", password, t0);
    expect(verifications).toHaveBeenCalledTimes(1);
  });

  it("makes a new session at every sign-in, never handing out a token twice", async () => {
    const signedUp = await auth.signUp("fixation@example.com", password, t0);
    const first = await auth.signIn("fixation@example.com", password, t0);
    const second = await auth.signIn("fixation@example.com", password, t0);
    expect(new Set([signedUp.token, first.token, second.token]).size).toBe(3);
    const rows = await kyselyOf(handle)
      .selectFrom("dashboard_sessions")
      .select("id")
      .where("account_id", "=", signedUp.accountId)
      .execute();
    expect(rows).toHaveLength(3);
    for (const { token } of [signedUp, first, second]) expect(await auth.session(token, t0)).toBeDefined();
  });

  it("slides the expiry at most once a day while used, and deletes an expired session", async () => {
    const { token, expiresAt } = await auth.signIn("fixation@example.com", password, t0);
    const id = hashSessionToken(token);

    // Within the first day: no write.
    expect(await auth.session(token, at(23 * 60 * 60 * 1000))).toMatchObject({ expiresAt, renewed: false });
    expect((await findDashboardSession(kyselyOf(handle), id))?.last_seen_at).toBe(t0.toISOString());

    // Less than 6 days left: 7 days from now.
    const later = at(DAY + 60_000);
    expect(await auth.session(token, later)).toMatchObject({
      expiresAt: new Date(later.getTime() + 7 * DAY).toISOString(),
      renewed: true,
    });
    expect(await findDashboardSession(kyselyOf(handle), id)).toMatchObject({
      last_seen_at: later.toISOString(),
      expires_at: new Date(later.getTime() + 7 * DAY).toISOString(),
      created_at: t0.toISOString(),
    });
    expect((await auth.session(token, at(DAY + 120_000)))?.renewed).toBe(false);

    // Used every 6.5 days, it lives on long past its first 7 days.
    let now = later;
    for (let i = 0; i < 10; i += 1) {
      now = new Date(now.getTime() + 6.5 * DAY);
      expect((await auth.session(token, now))?.renewed).toBe(true);
    }
    expect(now.getTime() - t0.getTime()).toBeGreaterThan(60 * DAY);

    // Unused for 7 days: gone, and deleted, so it does not come back for an earlier clock either.
    expect((await findDashboardSession(kyselyOf(handle), id))?.expires_at).toBe(
      new Date(now.getTime() + 7 * DAY).toISOString(),
    );
    expect(await auth.session(token, new Date(now.getTime() + 7 * DAY))).toBeUndefined();
    expect(await findDashboardSession(kyselyOf(handle), id)).toBeUndefined();
    expect(await auth.session(token, now)).toBeUndefined();
  });

  it("ignores malformed and unknown tokens", async () => {
    expect(await auth.session("", t0)).toBeUndefined();
    expect(await auth.session("x".repeat(43), t0)).toBeUndefined();
    expect(await auth.session("not a token at all; DROP TABLE accounts", t0)).toBeUndefined();
    await auth.signOut("garbage");
  });

  it("signs out one session, and only that one", async () => {
    const a = await auth.signUp("signout@example.com", password, t0);
    const b = await auth.signIn("signout@example.com", password, t0);
    const other = await auth.signUp("bystander@example.com", password, t0);

    await auth.signOut(a.token);
    expect(await auth.session(a.token, t0)).toBeUndefined();
    expect(await auth.session(b.token, t0)).toBeDefined();
    expect(await auth.session(other.token, t0)).toBeDefined();
  });
});
