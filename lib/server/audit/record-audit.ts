import "server-only";
import type { Db, Tx } from "@/lib/server/db/client";

export type Actor = {
  type: "user" | "apiKey" | "agent" | "system";
  id: string | null;
  /** What a person reads in the audit log: an email, an API key's name, a cluster's name. */
  label: string;
};

export const SYSTEM_ACTOR: Actor = { type: "system", id: null, label: "system" };

export type AuditTarget = { type: string; id: string } | null;

// Belt and braces: callers pass safe details, but a key that names a secret is never stored.
const SECRET_KEY = /password|secret|^token$|hash|privateKey|credential/i;

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : redact(v)]));
  }
  return value;
}

/** An audit row as recordAudit writes it (for writers that batch it with other rows in raw SQL). */
export function auditRow(actor: Actor, action: string, target: AuditTarget, details: Record<string, unknown> = {}) {
  return {
    actorType: actor.type,
    actorId: actor.id,
    actorLabel: actor.label,
    action,
    targetType: target?.type ?? null,
    targetId: target?.id ?? null,
    details: JSON.stringify(redact(details)),
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
