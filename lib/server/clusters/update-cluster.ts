import "server-only";
import type { ClusterEventRow } from "@/lib/domain/cluster-events";
import type { z } from "zod";
import type { updateClusterSchema } from "@/lib/contracts/clusters";
import { missingRequiredLabels } from "@/lib/domain/labels";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { getSettings } from "@/lib/server/settings/settings";
import { publish } from "@/lib/server/events/bus";
import { inTransaction } from "@/lib/server/db/transaction";
import { revokeCertificates } from "@/lib/server/pki/revoke-certificates";
import { replaceClusterLabels } from "./cluster-labels";
import { refuseScopeKeyChanges } from "@/lib/server/teams/scope-keys";

/** Identity is what the agent proved at registration: never editable. */
export const IMMUTABLE_FIELDS = ["id", "name", "caFingerprint", "registeredAt", "apiServerUrl", "registrationTokenId"] as const;

/** A PATCH naming an identity field is refused as such, before the body's schema. */
export function assertMutableFields(body: unknown): void {
  if (body && typeof body === "object") {
    const touched = IMMUTABLE_FIELDS.filter((f) => f in body);
    if (touched.length) {
      throw new ApiError(
        "immutable_field",
        `${touched.join(", ")} ${touched.length === 1 ? "is" : "are"} part of the cluster's identity and cannot be changed.`,
        {
          fields: touched,
        },
      );
    }
  }
}

/** PATCH /api/v1/clusters/{id}: replaces descriptive labels (and the description, owner, notes), audited. */
export async function updateCluster(actor: Actor, id: string, patch: z.output<typeof updateClusterSchema>): Promise<void> {
  const { requiredLabels } = await getSettings();
  if (patch.labels) {
    const missing = missingRequiredLabels(patch.labels, requiredLabels);
    if (missing.length) {
      throw new ApiError("missing_required_labels", `Required labels cannot be removed: ${missing.join(", ")}.`, { missing });
    }
  }
  const name = await inTransaction(async (tx, afterCommit) => {
    const cluster = await tx.cluster.findUnique({
      where: { id },
      select: { name: true, description: true, owner: true, notes: true, labels: true },
    });
    if (!cluster) throw new ApiError("not_found", "No cluster with this id.");
    const before = Object.fromEntries(cluster.labels.map((l) => [l.key, l.value]));
    const details: Record<string, unknown> = { name: cluster.name };
    if (patch.labels && actor.allowedAs?.team)
      await refuseScopeKeyChanges(tx, [{ name: cluster.name, before, after: patch.labels }]);
    if (patch.labels) {
      await replaceClusterLabels(tx, afterCommit, [{ clusterId: id, labels: patch.labels }]);
      details.labels = diffLabels(before, patch.labels);
    }
    if (patch.description !== undefined) {
      await tx.cluster.update({ where: { id }, data: { description: patch.description } });
      details.description = { from: cluster.description, to: patch.description };
    }
    // Owner and notes: descriptive like the description, each audited with before and after.
    for (const field of ["owner", "notes"] as const) {
      const to = patch[field];
      if (to === undefined) continue;
      await tx.cluster.update({ where: { id }, data: { [field]: to } });
      details[field] = { from: cluster[field], to };
    }
    await recordAudit(tx, actor, "cluster.update", { type: "cluster", id }, details);
    return cluster.name;
  });
  publish({ type: "cluster.updated", clusterId: id, name, at: new Date().toISOString() });
}

// Label keys are users' ("constructor" is a fine key): own properties only.
function diffLabels(before: Record<string, string>, after: Record<string, string>) {
  const added = Object.fromEntries(Object.entries(after).filter(([k]) => !Object.hasOwn(before, k)));
  const removed = Object.keys(before).filter((k) => !Object.hasOwn(after, k));
  const changed = Object.fromEntries(
    Object.entries(after)
      .filter(([k, v]) => Object.hasOwn(before, k) && before[k] !== v)
      .map(([k, v]) => [k, { from: before[k], to: v }]),
  );
  return { added, removed, changed };
}

/** Revokes the cluster's current certificates; its agent must register again. Audited. */
export async function revokeClusterCertificates(actor: Actor, id: string, reason: string): Promise<{ revoked: string[] }> {
  const now = new Date();
  const revoked = await inTransaction(async (tx, afterCommit) => {
    const cluster = await tx.cluster.findUnique({ where: { id }, select: { name: true } });
    if (!cluster) throw new ApiError("not_found", "No cluster with this id.");
    const serials = await revokeCertificates(tx, afterCommit, {
      clusterId: id,
      certificates: "current",
      kind: "revoked",
      note: reason,
      at: now,
    });
    if (!serials.length) throw new ApiError("conflict", "This cluster has no valid certificate to revoke.");
    const event: ClusterEventRow = {
      clusterId: id,
      clusterName: cluster.name,
      kind: "certificate",
      toValue: "revoked",
      reason,
      at: now,
    };
    await tx.clusterEvent.create({ data: event });
    await recordAudit(tx, actor, "certificate.revoke", { type: "cluster", id }, { name: cluster.name, serials, reason });
    return serials;
  });
  return { revoked };
}
