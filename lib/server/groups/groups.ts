import "server-only";
import type { z } from "zod";
import type { createGroupSchema, updateGroupSchema } from "@/lib/domain/groups";
import { parseSelector, selectorProblem } from "@/lib/domain/selector";
import { storedWindows } from "./group-windows";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { getSettings } from "@/lib/server/settings/settings";
import { countByStatus } from "@/lib/server/clusters/cluster-list-sql";
import { recomputeDesiredRevisions } from "@/lib/server/policies/policies";

type GroupRow = {
  id: string;
  name: string;
  description: string | null;
  selector: string;
  upgradeWindows: string | null;
  upgradeTimeZone: string | null;
  maxUnavailable: number | null;
  gateTolerateSnoozed: boolean;
  createdAt: Date;
  updatedAt: Date;
};

type GroupCounts = { total: number; Ready: number; NotReady: number; other: number };

/** Clusters in a group by status; the selector must be valid (see selectorProblem). */
async function countsFor(selector: string): Promise<GroupCounts> {
  const { notReadyThresholdSeconds } = await getSettings();
  const counts = await countByStatus(new Date(), notReadyThresholdSeconds, parseSelector(selector));
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return { total, Ready: counts.Ready, NotReady: counts.NotReady, other: total - counts.Ready - counts.NotReady };
}

/**
 * A group as the API shows it. A stored selector that is invalid (saved before the selector
 * limits) is shown with `selectorError` and no counts, never evaluated: the group stays listed
 * so an operator can fix or delete it. `counts` may be passed when already computed.
 */
async function view(g: GroupRow, counts?: GroupCounts) {
  const selectorError = selectorProblem(g.selector);
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    selector: g.selector,
    selectorError,
    upgradeWindows: storedWindows(g).windows,
    upgradeTimeZone: g.upgradeTimeZone,
    maxUnavailable: g.maxUnavailable,
    gateTolerateSnoozed: g.gateTolerateSnoozed,
    counts: selectorError ? null : (counts ?? (await countsFor(g.selector))),
    createdAt: g.createdAt.toISOString(),
    updatedAt: g.updatedAt.toISOString(),
  };
}

export async function listGroups() {
  const groups = await db().clusterGroup.findMany({ orderBy: { name: "asc" } });
  return Promise.all(groups.map((g) => view(g)));
}

export async function getGroup(idOrName: string) {
  const g = await db().clusterGroup.findFirst({ where: { OR: [{ id: idOrName }, { name: idOrName }] } });
  if (!g) throw new ApiError("not_found", "No cluster group with this id.");
  return view(g);
}

async function assertNameFree(name: string, exceptId?: string) {
  const clash = await db().clusterGroup.findUnique({ where: { name } });
  if (clash && clash.id !== exceptId) throw new ApiError("conflict", `A group named ${name} already exists.`);
}

export async function createGroup(actor: Actor, input: z.infer<typeof createGroupSchema>) {
  await assertNameFree(input.name);
  // Evaluated before the write: a selector the database cannot count is never saved.
  const counts = await countsFor(input.selector);
  const g = await db().$transaction(async (tx) => {
    const created = await tx.clusterGroup.create({
      data: {
        name: input.name,
        description: input.description ?? null,
        selector: input.selector,
        upgradeWindows: input.upgradeWindows?.length ? JSON.stringify(input.upgradeWindows) : null,
        upgradeTimeZone: input.upgradeTimeZone ?? null,
        maxUnavailable: input.maxUnavailable ?? null,
        gateTolerateSnoozed: input.gateTolerateSnoozed ?? false,
      },
    });
    await recordAudit(
      tx,
      actor,
      "group.create",
      { type: "group", id: created.id },
      {
        name: input.name,
        selector: input.selector,
        ...(input.upgradeWindows?.length ? { upgradeWindows: input.upgradeWindows, upgradeTimeZone: input.upgradeTimeZone } : {}),
      },
    );
    return created;
  });
  return view(g, counts);
}

export async function updateGroup(actor: Actor, id: string, input: z.infer<typeof updateGroupSchema>) {
  if (input.name) await assertNameFree(input.name, id);
  // As on create: a new selector is evaluated before it is saved.
  const counts = input.selector ? await countsFor(input.selector) : undefined;
  const g = await db().$transaction(async (tx) => {
    const before = await tx.clusterGroup.findUnique({ where: { id } });
    if (!before) throw new ApiError("not_found", "No cluster group with this id.");
    const { upgradeWindows, ...rest } = input;
    const updated = await tx.clusterGroup.update({
      where: { id },
      data: {
        ...rest,
        ...(upgradeWindows !== undefined
          ? { upgradeWindows: upgradeWindows?.length ? JSON.stringify(upgradeWindows) : null }
          : {}),
      },
    });
    const changes = Object.fromEntries(
      (Object.keys(input) as (keyof typeof input)[]).map((k) => [k, { from: before[k], to: updated[k] }]),
    );
    await recordAudit(tx, actor, "group.update", { type: "group", id }, { name: updated.name, changes });
    return updated;
  });
  if (input.selector) await recomputeDesiredRevisions();
  return view(g, counts);
}

export async function deleteGroup(actor: Actor, id: string) {
  await db().$transaction(async (tx) => {
    const g = await tx.clusterGroup.findUnique({ where: { id } });
    if (!g) throw new ApiError("not_found", "No cluster group with this id.");
    await tx.clusterGroup.delete({ where: { id } });
    await recordAudit(tx, actor, "group.delete", { type: "group", id }, { name: g.name, selector: g.selector });
  });
  await recomputeDesiredRevisions();
}
