import "server-only";
import type { z } from "zod";
import {
  desiredRevision,
  type createPolicySchema,
  type newRevisionSchema,
  type TargetedPolicy,
  type updatePolicySchema,
} from "@/lib/domain/policies";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { invalidateHeartbeatContext } from "@/lib/server/heartbeats/heartbeat-context";
import { Snapshot } from "@/lib/server/cache/snapshot";
import { selectorProblem } from "@/lib/domain/selector";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { processSingleton } from "@/lib/server/process-singletons";

/** Phases that receive no new policy revisions (a draining cluster keeps what it has). */
const FROZEN_PHASES = ["Draining", "Deregistration"];

// Registrations ask for the targeted policies every time; they change rarely. Changes on this
// instance invalidate at once (recomputeDesiredRevisions is called after each), others within 1 s.
const policySnapshot = () => processSingleton("targeted-policies", () => new Snapshot(loadTargetedPolicies, 1000));

async function targetedPolicies(fresh: boolean): Promise<TargetedPolicy[]> {
  if (fresh) policySnapshot().invalidate();
  return policySnapshot().get();
}

async function loadTargetedPolicies(): Promise<TargetedPolicy[]> {
  const policies = await db().policy.findMany({
    include: {
      revisions: { orderBy: { revision: "desc" }, take: 1 },
      targets: { include: { group: { select: { id: true, name: true, selector: true } } } },
    },
  });
  // A target group with an invalid stored selector reaches no cluster (and is logged once).
  return policies
    .filter((p) => p.revisions[0])
    .map((p) => ({
      name: p.name,
      revision: p.revisions[0]!.revision,
      selectors: p.targets.filter((t) => usableGroupSelector(t.group) !== null).map((t) => t.group.selector),
    }));
}

/**
 * Recomputes every cluster's desired policy revision (or only `clusterIds`) and stores the ones
 * that changed. Called after any change to policies, their targets, groups, or a cluster's labels.
 */
export async function recomputeDesiredRevisions(clusterIds?: string[]): Promise<number> {
  // A fleet-wide recompute follows a change to policies or groups: read them fresh.
  const policies = await targetedPolicies(!clusterIds);
  // Without policies every stored revision is already null (deleting the last one recomputed all).
  if (!policies.length && clusterIds) return 0;
  let changed = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await db().cluster.findMany({
      where: { phase: { notIn: FROZEN_PHASES }, ...(clusterIds ? { id: { in: clusterIds } } : {}) },
      select: { id: true, desiredPolicyRevision: true, labels: { select: { key: true, value: true } } },
      orderBy: { id: "asc" },
      take: 1000,
      ...(cursor ? { skip: 1, cursor: { id: cursor } } : {}),
    });
    if (!page.length) break;
    const updates = page
      .map((c) => ({
        id: c.id,
        before: c.desiredPolicyRevision,
        after: desiredRevision(Object.fromEntries(c.labels.map((l) => [l.key, l.value])), policies),
      }))
      .filter((u) => u.before !== u.after);
    if (updates.length) {
      await db().$transaction(
        updates.map((u) => db().cluster.update({ where: { id: u.id }, data: { desiredPolicyRevision: u.after } })),
      );
      changed += updates.length;
    }
    cursor = page[page.length - 1]!.id;
    if (page.length < 1000) break;
  }
  if (changed) invalidateHeartbeatContext();
  return changed;
}

function view(p: {
  id: string;
  name: string;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
  revisions: { revision: number; content: string; createdAt: Date }[];
  targets: { group: { id: string; name: string; selector: string } }[];
}) {
  const latest = p.revisions[0] ?? null;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    revision: latest?.revision ?? null,
    content: latest ? (JSON.parse(latest.content) as Record<string, unknown>) : null,
    revisions: p.revisions.map((r) => ({ revision: r.revision, createdAt: r.createdAt.toISOString() })),
    // A group with an invalid selector applies the policy to no cluster: say so beside it.
    groups: p.targets.map((t) => ({ id: t.group.id, name: t.group.name, selectorError: selectorProblem(t.group.selector) })),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

const include = {
  revisions: { orderBy: { revision: "desc" as const } },
  targets: { include: { group: { select: { id: true, name: true, selector: true } } } },
};

export async function listPolicies() {
  return (await db().policy.findMany({ orderBy: { name: "asc" }, include })).map(view);
}

export async function getPolicy(id: string) {
  const p = await db().policy.findUnique({ where: { id }, include });
  if (!p) throw new ApiError("not_found", "No policy with this id.");
  return view(p);
}

async function assertGroups(ids: string[]) {
  const found = await db().clusterGroup.count({ where: { id: { in: ids } } });
  if (found !== new Set(ids).size)
    throw new ApiError("invalid_request", "A target group does not exist.", [{ field: "groupIds", message: "unknown group id" }]);
}

export async function createPolicy(actor: Actor, input: z.infer<typeof createPolicySchema>) {
  await assertGroups(input.groupIds);
  if (await db().policy.findUnique({ where: { name: input.name } }))
    throw new ApiError("conflict", `A policy named ${input.name} already exists.`);
  const p = await db().$transaction(async (tx) => {
    const created = await tx.policy.create({ data: { name: input.name, description: input.description ?? null } });
    await tx.policyRevision.create({
      data: { policyId: created.id, revision: 1, content: JSON.stringify(input.content), createdById: actor.id },
    });
    if (input.groupIds.length)
      await tx.policyTarget.createMany({
        data: [...new Set(input.groupIds)].map((groupId) => ({ policyId: created.id, groupId })),
      });
    await recordAudit(
      tx,
      actor,
      "policy.create",
      { type: "policy", id: created.id },
      { name: input.name, groupIds: input.groupIds, revision: 1 },
    );
    return created;
  });
  await recomputeDesiredRevisions();
  return getPolicy(p.id);
}

export async function updatePolicy(actor: Actor, id: string, input: z.infer<typeof updatePolicySchema>) {
  if (input.groupIds) await assertGroups(input.groupIds);
  await db().$transaction(async (tx) => {
    const p = await tx.policy.findUnique({ where: { id } });
    if (!p) throw new ApiError("not_found", "No policy with this id.");
    if (input.description !== undefined) await tx.policy.update({ where: { id }, data: { description: input.description } });
    if (input.groupIds) {
      await tx.policyTarget.deleteMany({ where: { policyId: id } });
      if (input.groupIds.length)
        await tx.policyTarget.createMany({ data: [...new Set(input.groupIds)].map((groupId) => ({ policyId: id, groupId })) });
    }
    await recordAudit(tx, actor, "policy.update", { type: "policy", id }, { name: p.name, ...input });
  });
  await recomputeDesiredRevisions();
  return getPolicy(id);
}

export async function addRevision(actor: Actor, id: string, input: z.infer<typeof newRevisionSchema>) {
  await db().$transaction(async (tx) => {
    const p = await tx.policy.findUnique({ where: { id }, include: { revisions: { orderBy: { revision: "desc" }, take: 1 } } });
    if (!p) throw new ApiError("not_found", "No policy with this id.");
    const revision = (p.revisions[0]?.revision ?? 0) + 1;
    await tx.policyRevision.create({
      data: { policyId: id, revision, content: JSON.stringify(input.content), createdById: actor.id },
    });
    await tx.policy.update({ where: { id }, data: { updatedAt: new Date() } });
    await recordAudit(tx, actor, "policy.revise", { type: "policy", id }, { name: p.name, revision });
  });
  await recomputeDesiredRevisions();
  return getPolicy(id);
}

export async function deletePolicy(actor: Actor, id: string) {
  await db().$transaction(async (tx) => {
    const p = await tx.policy.findUnique({ where: { id } });
    if (!p) throw new ApiError("not_found", "No policy with this id.");
    await tx.policy.delete({ where: { id } });
    await recordAudit(tx, actor, "policy.delete", { type: "policy", id }, { name: p.name });
  });
  await recomputeDesiredRevisions();
}
