import "server-only";
import type { GateQuery, GateResult } from "@/lib/contracts/fleet";
import { formatDuration, gateVerdict, notReadySince, parseDuration, parseMaxUnready } from "@/lib/domain/gate-tolerance";
import { clusterStatus, type ClusterStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { getSettings } from "@/lib/server/settings/settings";
import { clusterPage } from "@/lib/server/clusters/cluster-list-sql";
import { gateFacts } from "@/lib/server/clusters/gate-facts";
import { selectionSelector } from "@/lib/server/clusters/list-clusters";
import { enrollmentChecklist } from "@/lib/domain/enrollment";
import { groupsMatching, loadGroups } from "@/lib/server/clusters/get-cluster";
import type { Selector } from "@/lib/domain/selector";
import { snoozedPart, snoozesIn, toleratesSnoozed } from "./gate-snoozes";

const MAX_CLUSTERS = 5000;
const CHUNK = 200;
const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

type GateCluster = {
  id: string;
  name: string;
  status: ClusterStatus;
  phase: string;
  enrolled: boolean;
  reasons: string[];
};

/**
 * GET /api/v1/gate: may a pipeline deploy to these clusters? Passes only when at least one
 * cluster is judged and every one is registered, Active, Ready and enrolled, or at most
 * `maxUnready` of them are not (a count, or a percentage of the clusters judged, rounded down);
 * each failing cluster says why. With `ignoreNotReadyLongerThan`, a match NotReady for longer
 * than that is listed as ignored and left out of the target set (the percentage's base too). A group whose stored selector is invalid is a 400 that names its problem
 * (lib/server/groups/group-selector.ts): a gate cannot pass or fail on a selection it cannot make.
 */
export async function evaluateGate(
  q: GateQuery,
  now = new Date(),
  /** the caller's teams' selectors (lib/server/auth/authorize.ts); null: the whole fleet */
  scope: readonly Selector[] | null = null,
): Promise<GateResult> {
  // Already checked by the query schema: parsed again here for their values.
  const maxUnready = q.maxUnready === undefined ? undefined : parseMaxUnready(q.maxUnready);
  const ignoreSeconds = q.ignoreNotReadyLongerThan === undefined ? undefined : parseDuration(q.ignoreNotReadyLongerThan);
  const settings = await getSettings();
  const selector = await selectionSelector({ selector: q.selector, group: q.group });
  // The clusters, by name, from the label index (cluster-list-sql.ts): the same SQL as the cluster list.
  const page = await clusterPage(
    { selector, ...(scope ? { scope } : {}) },
    { sort: "name", order: "asc", offset: 0, limit: MAX_CLUSTERS },
    now,
    settings.notReadyThresholdSeconds,
  );
  // A team's gate: what the selection also matches beyond the scope, counted, never judged.
  const leftOut = scope
    ? (
        await clusterPage(
          { selector },
          { sort: "name", order: "asc", offset: 0, limit: 0 },
          now,
          settings.notReadyThresholdSeconds,
        )
      ).total - page.total
    : 0;
  if (page.hasMore)
    throw new ApiError(
      "invalid_request",
      `The selection matches ${page.total} clusters; the gate evaluates at most ${MAX_CLUSTERS}.`,
    );
  // Snoozed clusters (an operator's known-broken ones) leave the target set when tolerated and unready.
  const tolerateSnoozed = await toleratesSnoozed(q);
  const snoozes = tolerateSnoozed ? await snoozesIn(selector, now, MAX_CLUSTERS) : new Map<string, never>();
  const snoozedOut: NonNullable<GateResult["snoozed"]>["clusters"] = [];
  const groups = await loadGroups();
  const groupCounts = new Map<string, number>();
  const results: GateCluster[] = [];
  const ignored: GateResult["ignored"]["clusters"] = [];
  // Read and judged in chunks with a yield between them: on SQLite every query holds the event
  // loop, and 5,000 clusters at once would hold heartbeats back for as long.
  for (let start = 0; start < page.ids.length; start += CHUNK) {
    if (start) await yieldToEventLoop();
    const ids = page.ids.slice(start, start + CHUNK);
    // Two queries by primary key (the columns the gate reads, the chunk's labels): Prisma's
    // findMany with its relation costs several times more per row on the synchronous driver.
    const byId = new Map((await gateFacts(ids)).map((c) => [c.id, c]));
    for (const id of ids) {
      const c = byId.get(id);
      if (!c) continue; // deleted between the two queries
      const labels: Record<string, string> = Object.create(null);
      for (const l of c.labels) labels[l.key] = l.value;
      // Clusters share few label sets: each set is matched against the groups once.
      const signature = JSON.stringify(c.labels.map((l) => [l.key, l.value]).sort());
      let groupCount = groupCounts.get(signature);
      if (groupCount === undefined) groupCounts.set(signature, (groupCount = groupsMatching(labels, groups).length));
      const status = clusterStatus(c, now, settings.notReadyThresholdSeconds);
      if (status === "NotReady" && ignoreSeconds !== undefined) {
        const since = notReadySince(c, now, settings.notReadyThresholdSeconds);
        if (now.getTime() - since.getTime() > ignoreSeconds * 1000) {
          ignored.push({ id: c.id, name: c.name, notReadySince: since.toISOString() });
          continue;
        }
      }
      const items = enrollmentChecklist(
        { ...c, labels, groupCount, fleetGroupCount: groups.length },
        settings.requiredLabels,
        now,
        settings.notReadyThresholdSeconds,
      );
      const reasons: string[] = [];
      if (!c.registeredAt) reasons.push("not registered: no agent has claimed it");
      if (c.phase !== "Active") reasons.push(`phase is ${c.phase}, not Active`);
      if (status !== "Ready") reasons.push(`status is ${status}, not Ready`);
      for (const i of items) if (!i.ok && i.key !== "ready") reasons.push(`${i.label}: ${i.reason}`);
      const snooze = reasons.length ? snoozes.get(c.id) : undefined;
      if (snooze) {
        snoozedOut.push({ id: c.id, name: c.name, ...snooze, reasons });
        continue;
      }
      results.push({ id: c.id, name: c.name, status, phase: c.phase, enrolled: items.every((i) => i.ok), reasons });
    }
  }
  const unready = results.filter((r) => r.reasons.length).length;
  const what = q.group ? `group ${q.group}` : `selector "${q.selector}"`;
  const verdict = gateVerdict({
    total: results.length,
    unready,
    ignored: ignored.map((c) => c.name),
    maxUnready,
    ignoreNotReadySeconds: ignoreSeconds,
    what,
  });
  return {
    pass: verdict.pass,
    summary: verdict.summary,
    evaluatedAt: now.toISOString(),
    clusters: results,
    tolerance: {
      maxUnready: maxUnready?.text ?? null,
      allowed: verdict.allowed,
      unready,
      total: results.length,
      text: verdict.tolerance,
    },
    ignored: {
      longerThan: ignoreSeconds === undefined ? null : formatDuration(ignoreSeconds),
      longerThanSeconds: ignoreSeconds ?? null,
      clusters: ignored,
      text: verdict.ignoredText,
    },
    snoozed: snoozedPart(tolerateSnoozed, snoozedOut),
    ...(scope
      ? {
          scope: {
            leftOut,
            text: leftOut
              ? `judged within your teams' scopes: ${leftOut} more cluster${leftOut === 1 ? "" : "s"} match outside them and ${leftOut === 1 ? "was" : "were"} left out`
              : "judged within your teams' scopes: nothing matching was left out",
          },
        }
      : {}),
  };
}
