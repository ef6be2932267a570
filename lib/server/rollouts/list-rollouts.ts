import "server-only";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { clusterFacts, rolloutView, teamNames, type RolloutReader } from "./get-rollout";

/**
 * The newest 100 rollouts: two reads (rollouts with their clusters, then those clusters' names),
 * whatever their number, and a third for the names of their teams when some belong to one.
 * `teamIds`: only the rollouts of these teams (a caller with team roles only); null: all.
 */
export async function listRollouts(reader: RolloutReader = db(), teamIds: readonly string[] | null = null) {
  const rollouts = await reader.rollout.findMany({
    where: teamIds ? { teamId: { in: [...teamIds] } } : {},
    orderBy: { createdAt: "desc" },
    take: 100,
    include: { clusters: true },
  });
  const [clusters, teams] = await Promise.all([clusterFacts(rollouts, reader), teamNames(rollouts, reader)]);
  const { notReadyThresholdSeconds } = await getSettings();
  const now = new Date();
  return rollouts.map((r) => rolloutView(r, clusters, now, notReadyThresholdSeconds, teams));
}
