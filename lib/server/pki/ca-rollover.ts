import "server-only";
import { X509Certificate } from "node:crypto";
import { env } from "@/lib/env";
import type { CaStatus, CaSummary } from "@/lib/contracts/settings";
import { rolloverPercent } from "@/lib/domain/certificates";
import type { DirectivePayload } from "@/lib/domain/agent-protocol";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import type { AgentIdentity } from "@/lib/server/agent-port/agent-identity";
import { caState, invalidateCaState, type CaState } from "./current-ca";
import { CA_SECRETS, createCa, encodeStoredCa, type FleetCa } from "./fleet-ca";
import { certificateFingerprint } from "./x509";

// Fleet CA rollover, in three moves:
//  1. start: a new CA is created and stored (sealed) beside the current one. From then on every
//     instance signs new client certificates with it, trusts client certificates of both, serves
//     both as a bundle (GET /api/agent/v1/ca, `caBundle` in heartbeat answers) and asks agents
//     whose certificate comes from the old CA to rotate (a `rotate` directive).
//  2. agents rotate: they first adopt the bundle (it arrives over TLS they already trust), then
//     rotate onto a certificate from the new CA; progress counts clusters still holding a current
//     certificate of the old CA.
//  3. retire: only when no current certificate chains to the old CA. The new CA becomes the only
//     one: the agent port's server certificate is re-issued from it (every agent trusts it by
//     then, from the bundle) and the old CA leaves the bundle.

/** After retirement, heartbeat answers keep announcing the bundle this long, for agents that were away. */
const ANNOUNCE_RETIRED_MS = 30 * 24 * 60 * 60 * 1000;

export function summarize(state: CaState): CaSummary[] {
  const one = (ca: FleetCa, s: CaSummary["state"]): CaSummary => ({
    fingerprint: ca.fingerprint,
    subject: ca.subject,
    key: caKeyName(ca.certPem),
    notAfter: ca.notAfter.toISOString(),
    state: s,
  });
  return state.next ? [one(state.serving, "retiring"), one(state.next, "incoming")] : [one(state.serving, "active")];
}

/** "RSA 3072", "ECDSA P-256": a CA's key as the Settings card and the API name it. */
export function caKeyName(certPem: string): string {
  const key = new X509Certificate(certPem).publicKey;
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === "rsa") return `RSA ${details?.modulusLength ?? "?"}`;
  if (key.asymmetricKeyType === "ec") return `ECDSA ${EC_CURVES[details?.namedCurve ?? ""] ?? details?.namedCurve ?? "?"}`;
  return key.asymmetricKeyType?.toUpperCase() ?? "unknown";
}
const EC_CURVES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

/** Clusters by the issuers of their current certificates (a cluster mid-rotation counts under both). */
async function usage(servingFingerprint: string, now: Date) {
  const rows = await db().certificate.findMany({
    where: { revokedAt: null, notAfter: { gt: now } },
    select: { clusterId: true, issuerFingerprint: true },
    distinct: ["clusterId", "issuerFingerprint"],
  });
  const byIssuer = new Map<string, Set<string>>();
  const clusters = new Set<string>();
  for (const r of rows) {
    // Certificates from before rollovers existed were signed by the CA that was then the only one.
    const issuer = r.issuerFingerprint ?? servingFingerprint;
    if (!byIssuer.has(issuer)) byIssuer.set(issuer, new Set());
    byIssuer.get(issuer)!.add(r.clusterId);
    clusters.add(r.clusterId);
  }
  return { clusters: clusters.size, byIssuer };
}

export async function getCaStatus(): Promise<CaStatus> {
  const state = await caState();
  let rollover: CaStatus["rollover"] = null;
  if (state.rollover && state.next) {
    const { clusters, byIssuer } = await usage(state.serving.fingerprint, new Date());
    // Anything not from the incoming CA is "old" (there is no third CA, but never count it as done).
    let onOld = 0;
    const old = new Set<string>();
    for (const [issuer, ids] of byIssuer) if (issuer !== state.next.fingerprint) for (const id of ids) old.add(id);
    onOld = old.size;
    rollover = {
      startedAt: state.rollover.startedAt.toISOString(),
      startedBy: state.rollover.startedBy,
      clusters,
      onOldCa: onOld,
      percent: rolloverPercent({ clusters, onOldCa: onOld }),
      byIssuer: [...byIssuer].map(([fingerprint, ids]) => ({ fingerprint, clusters: ids.size })),
      canRetire: onOld === 0,
    };
  }
  return {
    cas: summarize(state),
    rollover,
    retired: state.retired ? { fingerprint: state.retired.fingerprint, retiredAt: state.retired.retiredAt.toISOString() } : null,
  };
}

/** POST /api/v1/ca/rollover: creates the incoming CA (sealed) on every instance's view. */
export async function startCaRollover(actor: Actor): Promise<CaStatus> {
  const state = await freshState();
  if (state.rollover) throw new ApiError("invalid_transition", "A CA rollover is already in progress; retire the old CA first.");
  // The incoming CA has the key FLEET_CA_ALGORITHM names now: a rollover is how a fleet moves from
  // one to the other. RSA-3072 generation takes a moment; outside the transaction.
  const fresh = await createCa(env().FLEET_CA_ALGORITHM);
  const startedAt = new Date();
  const value = encodeStoredCa(fresh, env().fleetCaKek, { startedAt: startedAt.toISOString(), startedBy: actor.label });
  const nextFingerprint = certificateFingerprint(fresh.certPem);
  try {
    await db().$transaction(async (tx) => {
      // Certificates from before rollovers existed name no issuer: it is the serving CA.
      await tx.certificate.updateMany({
        where: { issuerFingerprint: null },
        data: { issuerFingerprint: state.serving.fingerprint },
      });
      await tx.secret.create({ data: { name: CA_SECRETS.rollover, value }, select: { name: true } });
      await recordAudit(
        tx,
        actor,
        "ca.rollover.start",
        { type: "ca", id: nextFingerprint },
        {
          from: state.serving.fingerprint,
          to: nextFingerprint,
        },
      );
    });
  } catch (err) {
    if ((err as { code?: unknown }).code === "P2002") {
      throw new ApiError("invalid_transition", "A CA rollover was just started by someone else.");
    }
    throw err;
  }
  invalidateCaState();
  return getCaStatus();
}

/** POST /api/v1/ca/retire: the incoming CA becomes the only one, once nothing current chains to the old. */
export async function retireOldCa(actor: Actor): Promise<CaStatus> {
  const state = await freshState();
  if (!state.rollover || !state.next) throw new ApiError("invalid_transition", "No CA rollover is in progress.");
  const status = await getCaStatus();
  if (!status.rollover?.canRetire) {
    throw new ApiError(
      "invalid_transition",
      `${status.rollover?.onOldCa ?? "Some"} cluster(s) still hold a current certificate of the old CA; wait until their agents have rotated, or revoke those certificates.`,
    );
  }
  const next = state.next;
  const old = state.serving;
  const retiredAt = new Date();
  await db().$transaction(async (tx) => {
    const rows = await tx.secret.findMany({
      where: { name: { in: [CA_SECRETS.bundle, CA_SECRETS.rollover] } },
      omit: { value: false },
    });
    const current = rows.find((r) => r.name === CA_SECRETS.bundle);
    const incoming = rows.find((r) => r.name === CA_SECRETS.rollover);
    if (!current || !incoming) throw new ApiError("invalid_transition", "The CA rollover was just completed by someone else.");
    // The incoming CA's stored form (already sealed) becomes the CA, keeping its sealing as is.
    const promoted = JSON.parse(incoming.value) as Record<string, unknown>;
    delete promoted.startedAt;
    delete promoted.startedBy;
    promoted.retired = { fingerprint: old.fingerprint, retiredAt: retiredAt.toISOString() };
    const swapped = await tx.secret.updateMany({
      where: { name: CA_SECRETS.bundle, value: current.value },
      data: { value: JSON.stringify(promoted) },
    });
    if (swapped.count !== 1) throw new ApiError("invalid_transition", "The CA changed meanwhile; try again.");
    await tx.secret.delete({ where: { name: CA_SECRETS.rollover } });
    await tx.secret.upsert({
      where: { name: CA_SECRETS.cert },
      create: { name: CA_SECRETS.cert, value: next.certPem },
      update: { value: next.certPem },
    });
    // Keep the retired CA's certificate (public) for investigations; its key is gone.
    await tx.secret.upsert({
      where: { name: `fleet-ca.retired.${old.fingerprint.slice(7, 23)}` },
      create: { name: `fleet-ca.retired.${old.fingerprint.slice(7, 23)}`, value: old.certPem },
      update: { value: old.certPem },
    });
    await recordAudit(
      tx,
      actor,
      "ca.rollover.retire",
      { type: "ca", id: old.fingerprint },
      { retired: old.fingerprint, active: next.fingerprint },
    );
  });
  invalidateCaState();
  return getCaStatus();
}

async function freshState(): Promise<CaState> {
  invalidateCaState();
  return caState();
}

/**
 * The CA fields of a heartbeat answer: during a rollover (and for a while after it) the trusted
 * bundle; during a rollover, a `rotate` directive to an agent whose certificate comes from the
 * old CA, if it reports `rotate` among its capabilities or reports none. The directive repeats
 * until the agent presents a certificate from the new CA; its ack needs no bookkeeping.
 */
export function heartbeatCaFields(
  state: CaState,
  agent: Pick<AgentIdentity, "issuerFingerprint">,
  capabilities: string[] | undefined,
  now: Date,
): { caBundle?: string; directive?: { id: string; type: "rotate" } & DirectivePayload<"rotate"> } {
  const announce =
    !!state.rollover || (state.retired !== null && now.getTime() - state.retired.retiredAt.getTime() < ANNOUNCE_RETIRED_MS);
  if (!announce) return {};
  const out: ReturnType<typeof heartbeatCaFields> = { caBundle: state.bundlePem };
  const next = state.next;
  if (next && agent.issuerFingerprint !== next.fingerprint && (!capabilities || capabilities.includes("rotate"))) {
    out.directive = { id: `rotate-${next.fingerprint.slice(7, 31)}`, type: "rotate", caFingerprint: next.fingerprint };
  }
  return out;
}
