import "server-only";
import { redactCredentials, urlsToOrigins } from "@/lib/domain/redact";
import type { Db, Tx } from "@/lib/server/db/client";
import { insertInto, type Sql } from "@/lib/server/db/sql";

export type Actor = {
  type: "user" | "apiKey" | "agent" | "system";
  id: string | null;
  /** What a person reads in the audit log: an email, an API key's name, a cluster's name. */
  label: string;
  /**
   * The role and team an admin API call was allowed under (lib/server/auth/authorize.ts): team
   * null for a fleet role. Every audit row the call writes records it (allowedRole, allowedTeam).
   */
  allowedAs?: { role: string; team: string | null };
};

export const SYSTEM_ACTOR: Actor = { type: "system", id: null, label: "system" };

export type AuditTarget = { type: string; id: string } | null;

// Operators read the audit log and its export, while some of what an admin change touches is
// admin-only because it is a credential: a webhook URL (Slack's and others' carry theirs in the
// path), a hub server, a token. So whatever a caller passes, a row keeps no value under a key that
// names a secret, only the origin (scheme, host, port) of any URL in its text, and none of our
// credentials' or a private key's text. Rows written before this rule are history and stay as
// they are.
const SECRET_KEY = /password|secret|^token$|hash|privateKey|credential|authorization|cookie/i;

function redact(value: unknown): unknown {
  if (typeof value === "string") return redactCredentials(urlsToOrigins(value));
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    // A flag (passwordChanged: true) says that something changed, not what it is.
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) && typeof v !== "boolean" ? "[redacted]" : redact(v)]),
    );
  }
  return value;
}

// The audit door: every audit entry is written by recordAudit, or built by auditRow and written
// by auditInsert (tests/unit/server/one-door.test.ts holds every other file to that).

export type AuditRow = ReturnType<typeof auditRow>;

/** An audit row as recordAudit writes it (for writers that batch it with other rows in raw SQL: auditInsert). */
export function auditRow(actor: Actor, action: string, target: AuditTarget, details: Record<string, unknown> = {}) {
  return {
    actorType: actor.type,
    actorId: actor.id,
    actorLabel: actor.label,
    action,
    targetType: target?.type ?? null,
    targetId: target?.id ?? null,
    details: JSON.stringify(redact(details)),
    allowedRole: actor.allowedAs?.role ?? null,
    allowedTeam: actor.allowedAs?.team ?? null,
  };
}

/** The one way a state change is written to the audit log. Pass the transaction when there is one. */
export async function recordAudit(
  client: Db | Tx,
  actor: Actor,
  action: string,
  target: AuditTarget,
  details: Record<string, unknown> = {},
): Promise<void> {
  await client.auditLog.create({ data: auditRow(actor, action, target, details) });
}

/** Audit rows as one raw insert at `at`, for a writer that batches them with its other rows. */
export function auditInsert(rows: readonly AuditRow[], at: Date): Sql {
  return insertInto(
    "AuditLog",
    rows.map((r) => ({ ...r, at })),
  );
}
