import { type PlanId, plans } from "@octavo/contracts";
import type { DatabaseHandle, KeyMode } from "@octavo/db";
import {
  anyAccountExists,
  findAccountByEmail,
  findAccountById,
  findApiKeyByHash,
  findApiKeyById,
  insertAccount,
  insertApiKey,
  insertLedgerEntry,
  kyselyOf,
  listApiKeys,
  revokeApiKey,
  rotateWebhookSecret,
  touchApiKey,
  updateAccountPlan,
} from "@octavo/db/repositories";
import {
  generateApiKey,
  generateWebhookSecret,
  hashApiKey,
  isWellFormedApiKey,
  openSecret,
  sealSecret,
} from "./secrets.js";
import { billingPeriodOf, newId, toIso } from "./time.js";

export class AccountError extends Error {
  override readonly name = "AccountError";
}

export function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(plans, value);
}

export interface CreatedAccount {
  accountId: string;
  apiKey: string;
  webhookSecret: string;
}

export interface CreatedAccountWithoutKey {
  accountId: string;
  apiKey: null;
  webhookSecret: string;
}

export interface CreateAccountOptions {
  /** False: no API key is made (the dashboard's sign-up). Default true. */
  withApiKey?: boolean;
  /** The dashboard password's argon2id hash (see CustomerAuth); none by default. */
  passwordHash?: string | null;
}

/** How every email is stored and looked up: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A plausible address (something@domain.tld, no spaces); takes a normalized one. */
export function isEmailAddress(normalized: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(normalized);
}

export interface ApiKeySummary {
  id: string;
  prefix: string;
  /** Test keys' jobs run uncharged and apart from live ones. */
  mode: KeyMode;
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export type Authentication =
  | { ok: true; accountId: string; keyId: string; mode: KeyMode }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" };

/** Accounts, API keys and credit adjustments: what the CLI (and later the dashboard) manage. */
export class AccountService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly secretKey: string,
  ) {}

  /** Whether the database holds any account yet (a first start creates the demo account). */
  hasAnyAccount(): Promise<boolean> {
    return anyAccountExists(kyselyOf(this.database));
  }

  /**
   * A new account with a webhook secret and, by default, an API key labelled "default" (what the CLI
   * prints). The dashboard's sign-up passes `{ withApiKey: false, passwordHash }`: the customer makes
   * keys in the dashboard, and the password is stored in the same transaction as the account.
   */
  createAccount(
    email: string,
    plan: PlanId,
    now?: Date,
    options?: CreateAccountOptions & { withApiKey?: true },
  ): Promise<CreatedAccount>;
  createAccount(
    email: string,
    plan: PlanId,
    now: Date | undefined,
    options: CreateAccountOptions & { withApiKey: false },
  ): Promise<CreatedAccountWithoutKey>;
  async createAccount(
    email: string,
    plan: PlanId,
    now = new Date(),
    options: CreateAccountOptions = {},
  ): Promise<CreatedAccount | CreatedAccountWithoutKey> {
    const normalized = normalizeEmail(email);
    if (!isEmailAddress(normalized)) throw new AccountError(`"${email}" is not an email address`);
    if (await findAccountByEmail(kyselyOf(this.database), normalized)) {
      throw new AccountError(`an account with the email ${normalized} already exists`);
    }
    const accountId = newId();
    const webhookSecret = generateWebhookSecret();
    const key = options.withApiKey === false ? null : generateApiKey();
    await kyselyOf(this.database)
      .transaction()
      .execute(async (trx) => {
        await insertAccount(trx, {
          id: accountId,
          email: normalized,
          plan,
          webhook_secret: sealSecret(this.secretKey, webhookSecret),
          password_hash: options.passwordHash ?? null,
          created_at: toIso(now),
        });
        if (key) {
          await insertApiKey(trx, {
            id: newId(),
            account_id: accountId,
            prefix: key.prefix,
            hash: key.hash,
            label: "default",
            created_at: toIso(now),
          });
        }
      });
    return { accountId, apiKey: key ? key.key : null, webhookSecret };
  }

  async requireAccount(accountId: string) {
    const account = await findAccountById(kyselyOf(this.database), accountId);
    if (!account) throw new AccountError(`no account with id ${accountId}`);
    return account;
  }

  async webhookSecret(accountId: string): Promise<string> {
    const account = await this.requireAccount(accountId);
    return openSecret(this.secretKey, account.webhook_secret);
  }

  /** The secrets that sign a delivery now: the current one, and the previous one for 24 h after a rotation. */
  async signingSecrets(accountId: string, now = new Date()): Promise<string[]> {
    const account = await this.requireAccount(accountId);
    const secrets = [openSecret(this.secretKey, account.webhook_secret)];
    const expiresAt = account.previous_webhook_secret_expires_at;
    if (account.previous_webhook_secret && expiresAt && Date.parse(expiresAt) > now.getTime()) {
      secrets.push(openSecret(this.secretKey, account.previous_webhook_secret));
    }
    return secrets;
  }

  /** A new signing secret; the old one keeps signing next to it for 24 hours, so receivers can switch. */
  async rotateWebhookSecret(
    accountId: string,
    now = new Date(),
  ): Promise<{ webhookSecret: string; previousValidUntil: string }> {
    const account = await this.requireAccount(accountId);
    const webhookSecret = generateWebhookSecret();
    const previousValidUntil = toIso(new Date(now.getTime() + 24 * 60 * 60 * 1000));
    await rotateWebhookSecret(
      kyselyOf(this.database),
      accountId,
      sealSecret(this.secretKey, webhookSecret),
      account.webhook_secret,
      previousValidUntil,
    );
    return { webhookSecret, previousValidUntil };
  }

  async setPlan(accountId: string, plan: PlanId): Promise<void> {
    if (!(await updateAccountPlan(kyselyOf(this.database), accountId, plan)))
      throw new AccountError(`no account with id ${accountId}`);
  }

  /** A ledger entry in the current month: a grant (positive) or a correction (negative). */
  async adjustCredits(accountId: string, amount: number, reason: string, now = new Date()): Promise<void> {
    if (!Number.isInteger(amount) || amount === 0)
      throw new AccountError("the amount must be a non-zero whole number");
    if (reason.trim() === "") throw new AccountError("a reason is required");
    await this.requireAccount(accountId);
    await insertLedgerEntry(kyselyOf(this.database), {
      id: newId(),
      account_id: accountId,
      period_start: billingPeriodOf(now).start,
      kind: "adjustment",
      amount,
      job_id: null,
      reason: reason.trim(),
      created_at: toIso(now),
    });
  }

  async createKey(
    accountId: string,
    label: string | null = null,
    mode: KeyMode = "live",
    now = new Date(),
  ): Promise<{ id: string; apiKey: string; prefix: string; mode: KeyMode }> {
    await this.requireAccount(accountId);
    const key = generateApiKey(mode);
    const id = newId();
    await insertApiKey(kyselyOf(this.database), {
      id,
      account_id: accountId,
      prefix: key.prefix,
      hash: key.hash,
      mode,
      label,
      created_at: toIso(now),
    });
    return { id, apiKey: key.key, prefix: key.prefix, mode };
  }

  async listKeys(accountId: string): Promise<ApiKeySummary[]> {
    await this.requireAccount(accountId);
    const rows = await listApiKeys(kyselyOf(this.database), accountId);
    return rows.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      mode: row.mode,
      label: row.label,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
    }));
  }

  async revokeKey(keyId: string, now = new Date()): Promise<void> {
    const key = await findApiKeyById(kyselyOf(this.database), keyId);
    if (!key) throw new AccountError(`no API key with id ${keyId}`);
    if (key.revoked_at) throw new AccountError(`API key ${keyId} was already revoked at ${key.revoked_at}`);
    await revokeApiKey(kyselyOf(this.database), keyId, toIso(now));
  }

  async authenticate(apiKey: string, now = new Date()): Promise<Authentication> {
    if (!isWellFormedApiKey(apiKey)) return { ok: false, reason: "malformed" };
    const key = await findApiKeyByHash(kyselyOf(this.database), hashApiKey(apiKey));
    if (!key) return { ok: false, reason: "unknown" };
    if (key.revoked_at) return { ok: false, reason: "revoked" };
    await touchApiKey(kyselyOf(this.database), key.id, toIso(now), toIso(new Date(now.getTime() - 60_000)));
    // The stored mode, not the prefix: a key is what its row says it is.
    return { ok: true, accountId: key.account_id, keyId: key.id, mode: key.mode };
  }
}
