import "server-only";
import type { ClusterProfileList } from "@/lib/contracts/cluster-profiles";
import { CLUSTER_PROFILE_API_VERSION, clusterProfile } from "@/lib/domain/cluster-profiles";
import { getSettings } from "@/lib/server/settings/settings";
import { exporterNamespace } from "./exporter-settings";
import { loadProfileFacts } from "./profile-facts";

/**
 * A page of the fleet as a ClusterProfileList, by name: `metadata.continue` is the last name of a
 * full page. Profiles carry the exporter's namespace when one is set, as they would on the hub.
 */
export async function listClusterProfiles(q: { limit: number; cursor?: string }): Promise<ClusterProfileList> {
  const [settings, namespace] = await Promise.all([getSettings(), exporterNamespace()]);
  const facts = await loadProfileFacts({ after: q.cursor, take: q.limit + 1 });
  const page = facts.slice(0, q.limit);
  const now = new Date();
  const ctx = { now, notReadyThresholdSeconds: settings.notReadyThresholdSeconds, namespace: namespace ?? undefined };
  return {
    apiVersion: CLUSTER_PROFILE_API_VERSION,
    kind: "ClusterProfileList",
    metadata: facts.length > q.limit ? { continue: page[page.length - 1]!.name } : {},
    items: page.map((f) => clusterProfile(f, ctx)),
  };
}
