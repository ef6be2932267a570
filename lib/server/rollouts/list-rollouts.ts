import "server-only";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { clusterFacts, rolloutView, type RolloutReader } from "./get-rollout";

/** The newest 100 rollouts: two reads (rollouts with their clusters, then those clusters' names), whatever their number. */
export async function listRollouts(reader: RolloutReader = db()) {
  const rollouts = await reader.rollout.findMany({ orderBy: { createdAt: "desc" }, take: 100, include: { clusters: true } });
  const clusters = await clusterFacts(rollouts, reader);
  const { notReadyThresholdSeconds } = await getSettings();
  const now = new Date();
  return rollouts.map((r) => rolloutView(r, clusters, now, notReadyThresholdSeconds));
}
