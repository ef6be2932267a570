import "server-only";
import type { RegisterRequest } from "@/lib/domain/agent-protocol";
import { planRegistration as decide, type PlanFacts, type RegistrationPlan } from "@/lib/domain/registration-plan";
import { keptKeyCandidates } from "@/lib/domain/reregistration";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { asDate } from "@/lib/server/db/driver-values";
import { columns, readOnDriver, sql } from "@/lib/server/db/sql";
import { certifiesKey } from "@/lib/server/pki/public-key";
import { tokenExhausted } from "@/lib/server/tokens/token-refusals";
import type { RegistrationToken } from "./authenticate-token";

/** The cluster already carrying a registration's name. */
export type ExistingCluster = {
  id: string;
  name: string;
  phase: string;
  caFingerprint: string | null;
  apiServerUrl: string | null;
  registeredAt: Date | null;
  labels: Record<string, string>;
};

export type Plan = RegistrationPlan<ExistingCluster>;

// Read in raw SQL on the driver on every registration, as the token is (authenticate-token.ts).
const cluster = columns("Cluster", "c");
const label = columns("ClusterLabel", "l");

/** The cluster of that name with its labels, in one statement (a row per label, or one with none). */
export async function findClusterByName(name: string): Promise<ExistingCluster | null> {
  const rows = await readOnDriver<Omit<ExistingCluster, "labels"> & { key: string | null; value: string | null }>(
    sql`SELECT ${cluster.list("id", "name", "phase", "caFingerprint", "apiServerUrl", "registeredAt")}, ${label.list("key", "value")}
        FROM ${cluster.table} LEFT JOIN ${label.table} ON ${label("clusterId")} = ${cluster("id")} WHERE ${cluster("name")} = ${name}`,
  );
  const first = rows[0];
  if (!first) return null;
  const { key: _key, value: _value, ...row } = first;
  return {
    ...row,
    registeredAt: asDate(row.registeredAt),
    labels: Object.fromEntries(rows.flatMap((r) => (r.key === null ? [] : [[r.key, r.value ?? ""]]))),
  };
}

/**
 * The plan for this registration (lib/domain/registration-plan.ts), looking up only the facts it
 * asks for; a refusal is thrown as the protocol's error.
 */
export async function planRegistration(
  req: RegisterRequest,
  token: RegistrationToken,
  existing: ExistingCluster | null,
  publicKeyPem: string,
  settings: { requiredLabels: string[]; now: Date; graceDays: number },
): Promise<Plan> {
  const facts: PlanFacts<ExistingCluster> = {
    name: req.name,
    requested: req.labels,
    token,
    existing,
    required: settings.requiredLabels,
  };
  for (;;) {
    const decision = decide(facts);
    if ("plan" in decision) return decision.plan;
    if ("refused" in decision) {
      const r = decision.refused;
      throw r.code === "token_exhausted" ? tokenExhausted() : new ApiError(r.code, r.message, r.details);
    }
    if (decision.needs === "boundClusterName") facts.boundClusterName = await clusterName(token.clusterId!);
    else facts.keptKey = await hasKeptKey(existing!.id, publicKeyPem, settings);
  }
}

async function clusterName(clusterId: string): Promise<string | null> {
  const c = await db().cluster.findUnique({ where: { id: clusterId }, select: { name: true } });
  return c?.name ?? null;
}

/** Is the CSR's key that of the cluster's current or last certificate, not revoked by an operator? */
async function hasKeptKey(clusterId: string, publicKeyPem: string, renewal: { now: Date; graceDays: number }): Promise<boolean> {
  const certs = await db().certificate.findMany({
    where: { clusterId },
    orderBy: { createdAt: "desc" },
    select: { serial: true, pem: true, createdAt: true, revokedAt: true, notAfter: true },
  });
  const revoked = await db().revokedCertificate.findMany({
    where: { serial: { in: certs.filter((c) => c.revokedAt).map((c) => c.serial) } },
    select: { serial: true, reason: true },
  });
  const reasons = new Map(revoked.map((r) => [r.serial, r.reason]));
  const candidates = keptKeyCandidates(
    certs.map((c) => ({ ...c, revokedReason: reasons.get(c.serial) ?? null })),
    { now: renewal.now, graceDays: renewal.graceDays },
  );
  return candidates.some((c) => certifiesKey(c.pem, publicKeyPem));
}
