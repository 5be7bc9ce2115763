import { createHash, randomBytes } from "node:crypto";
import { type Algorithm, hash, verify } from "@node-rs/argon2";
import type { PlanId } from "@octavo/contracts";
import type { DatabaseHandle } from "@octavo/db";
import {
  deleteDashboardSession,
  findAccountByEmail,
  findAccountById,
  findDashboardSession,
  insertDashboardSession,
  kyselyOf,
  touchDashboardSession,
} from "@octavo/db/repositories";
import { type AccountService, isEmailAddress, isPlanId, normalizeEmail } from "./accounts.js";
import { toIso } from "./time.js";

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
const MAX_EMAIL_LENGTH = 254;

const DAY_MS = 24 * 60 * 60 * 1000;
/** A session lives 7 days after its last extension... */
export const SESSION_LIFETIME_MS = 7 * DAY_MS;
/** ...and is extended when less than 6 days remain: at most one write a day per session. */
const SESSION_EXTEND_BELOW_MS = 6 * DAY_MS;

/**
 * argon2id with OWASP's minimum recommended parameters (Password Storage Cheat Sheet): 19 MiB of
 * memory (19456 KiB), 2 iterations, 1 degree of parallelism. About 100 ms per hash on one core here.
 * Verification reads the parameters from the stored PHC string, so raising them later keeps old
 * hashes working.
 */
const ARGON2ID = 2 satisfies Algorithm;
export const PASSWORD_HASH_OPTIONS = {
  algorithm: ARGON2ID,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

/**
 * An argon2id hash (same parameters) of a random password nobody knows. Sign-in verifies against it
 * when the email is unknown or has no password, so the answer takes as long as for a wrong password
 * and timing does not tell which emails have accounts.
 */
export const DUMMY_PASSWORD_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$ewvcD69t33hB/YXf2cO+Bg$UxzSK040jndIX/9ezTfsiQfLTu/NsgE3VQdso2yJ7qA";

/** 32 random bytes, base64url. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export class SignUpError extends Error {
  override readonly name = "SignUpError";
  constructor(
    /** The form field the message belongs next to. */
    readonly field: "email" | "password",
    message: string,
  ) {
    super(message);
  }
}

/** One message whatever went wrong, so sign-in does not tell which emails have accounts. */
export class SignInError extends Error {
  override readonly name = "SignInError";
  constructor() {
    super("The email or password is not right.");
  }
}

/** A session just made: `token` goes into the cookie (HttpOnly, Secure, SameSite) and nowhere else. */
export interface NewSession {
  token: string;
  expiresAt: string;
  accountId: string;
}

/** The signed-in customer behind a session token. */
export interface CustomerSession {
  /** SHA-256 of the token (hex): safe to log or to derive a CSRF token from; not a credential. */
  sessionId: string;
  accountId: string;
  email: string;
  plan: PlanId;
  expiresAt: string;
  /** True when this call extended expiresAt: send the cookie again with the new expiry. */
  renewed: boolean;
}

/** SHA-256 hex of a session token: the session's id. The token has 256 random bits, so a fast hash is enough. */
export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** What a person can act on, or undefined for an acceptable password. Counted in Unicode characters. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password.normalize("NFC")].length;
  if (length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}

/** NFC first, so the same password typed on different systems (é composed or not) matches. */
function hashPassword(password: string): Promise<string> {
  return hash(password.normalize("NFC"), PASSWORD_HASH_OPTIONS);
}

async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password.normalize("NFC"));
  } catch {
    return false; // a malformed stored hash signs nobody in
  }
}

/** Sign-up, sign-in and sessions of the customer dashboard. */
export class CustomerAuth {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly accounts: AccountService,
  ) {}

  /** A new account on the Free plan, without an API key, signed in. */
  async signUp(email: string, password: string, now = new Date()): Promise<NewSession> {
    const normalized = normalizeEmail(email);
    if (normalized.length > MAX_EMAIL_LENGTH || !isEmailAddress(normalized)) {
      throw new SignUpError("email", "Enter an email address like name@example.com.");
    }
    const problem = passwordProblem(password);
    if (problem) throw new SignUpError("password", problem);
    const taken = () =>
      new SignUpError("email", "An account with this email already exists; sign in instead.");
    if (await findAccountByEmail(kyselyOf(this.database), normalized)) throw taken();

    const passwordHash = await hashPassword(password);
    let accountId: string;
    try {
      ({ accountId } = await this.accounts.createAccount(normalized, "free", now, {
        withApiKey: false,
        passwordHash,
      }));
    } catch (error) {
      // Two sign-ups with one email at once: the unique email decides, the loser hears it is taken.
      if (await findAccountByEmail(kyselyOf(this.database), normalized)) throw taken();
      throw error;
    }
    return this.createSession(accountId, now);
  }

  /** A new session (never one given out before), or SignInError. */
  async signIn(email: string, password: string, now = new Date()): Promise<NewSession> {
    const normalized = normalizeEmail(email);
    const account =
      normalized.length <= MAX_EMAIL_LENGTH && isEmailAddress(normalized)
        ? await findAccountByEmail(kyselyOf(this.database), normalized)
        : undefined;
    const tooLong = password.length > MAX_PASSWORD_LENGTH * 2; // UTF-16 units: at most 2 per character
    // Always one argon2 verification, real or against the dummy hash, so every failure takes as long.
    const storedHash = account?.password_hash ?? DUMMY_PASSWORD_HASH;
    const matches = await verifyPassword(storedHash, tooLong ? "" : password);
    if (!account?.password_hash || tooLong || !matches) throw new SignInError();
    return this.createSession(account.id, now);
  }

  /**
   * The customer signed in with this token, or undefined (unknown, malformed or expired; an expired
   * session is deleted). Sliding expiry: a session used with less than 6 of its 7 days left is extended
   * to 7 days from now.
   */
  async session(token: string, now = new Date()): Promise<CustomerSession | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const sessionId = hashSessionToken(token);
    const row = await findDashboardSession(kyselyOf(this.database), sessionId);
    if (!row) return undefined;
    const expiresAtMs = Date.parse(row.expires_at);
    if (expiresAtMs <= now.getTime()) {
      await deleteDashboardSession(kyselyOf(this.database), sessionId);
      return undefined;
    }
    const account = await findAccountById(kyselyOf(this.database), row.account_id);
    if (!account) return undefined;
    if (!isPlanId(account.plan)) throw new Error(`account ${account.id} has an unknown plan ${account.plan}`);
    let expiresAt = row.expires_at;
    const renewed = expiresAtMs - now.getTime() < SESSION_EXTEND_BELOW_MS;
    if (renewed) {
      expiresAt = toIso(new Date(now.getTime() + SESSION_LIFETIME_MS));
      await touchDashboardSession(kyselyOf(this.database), sessionId, toIso(now), expiresAt);
    }
    return { sessionId, accountId: account.id, email: account.email, plan: account.plan, expiresAt, renewed };
  }

  /** Ends the session of this token; nothing happens for an unknown one. */
  async signOut(token: string): Promise<void> {
    if (!TOKEN_SHAPE.test(token)) return;
    await deleteDashboardSession(kyselyOf(this.database), hashSessionToken(token));
  }

  private async createSession(accountId: string, now: Date): Promise<NewSession> {
    const token = randomBytes(32).toString("base64url");
    const expiresAt = toIso(new Date(now.getTime() + SESSION_LIFETIME_MS));
    await insertDashboardSession(kyselyOf(this.database), {
      id: hashSessionToken(token),
      account_id: accountId,
      created_at: toIso(now),
      expires_at: expiresAt,
      last_seen_at: toIso(now),
    });
    return { token, expiresAt, accountId };
  }
}
