import "server-only";
import type { ClusterEventRow } from "@/lib/domain/cluster-events";
import { blockingItems, enrollmentChecklist, type ChecklistItem, type ChecklistState } from "@/lib/domain/enrollment";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { db } from "@/lib/server/db/client";
import { updateFromValuesStatements, type ValuesColumn } from "@/lib/server/db/bulk-update";
import { columns, insertInto, runOnDriver, sql, type Column } from "@/lib/server/db/sql";
import { enrollmentPage } from "@/lib/server/clusters/enrollment-page";
import { getSettings } from "@/lib/server/settings/settings";
import { publish } from "@/lib/server/events/bus";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { processSingleton } from "@/lib/server/process-singletons";

/** Stored per cluster: each checklist item's state and since when it has been in it. */
export type StoredEnrollment = Record<string, { state: ChecklistState; since: string }>;

export type EnrollmentSummary = {
  at: string;
  total: number;
  enrolled: number;
  /** clusters blocked on each item (failing or pending), by item key */
  blockedBy: Record<string, number>;
  labels: Record<string, string>;
};

const lastSummary = () => processSingleton("enrollment-summary", () => ({ value: null as EnrollmentSummary | null }));

/** The last evaluation's fleet-wide numbers (null before the first pass on this instance). */
export function enrollmentSummary(): EnrollmentSummary | null {
  return lastSummary().value;
}

export function parseStored(text: string | null): StoredEnrollment {
  try {
    return text ? (JSON.parse(text) as StoredEnrollment) : {};
  } catch {
    return {};
  }
}

/** Merges a fresh checklist into what was stored: `since` moves only when an item's state changes. */
export function mergeEnrollment(stored: StoredEnrollment, items: ChecklistItem[], now: Date): StoredEnrollment {
  return Object.fromEntries(
    items.map((i) => [i.key, stored[i.key]?.state === i.state ? stored[i.key]! : { state: i.state, since: now.toISOString() }]),
  );
}

// Pages with a yield between them: the evaluator shares the event loop with heartbeats and page
// loads (a page of unchanged clusters is read by two raw statements, then judged in memory).
const PAGE = 500;
/** changed clusters written by one transaction (one multi-row UPDATE, one multi-row INSERT) */
const WRITE_CHUNK = 250;
const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

/**
 * What this instance last read or wrote of each cluster's stored checklist, with its states in
 * short form: a pass compares the fresh states with these instead of parsing every cluster's
 * JSON (a third of a steady pass's CPU at 10,000 clusters). Rebuilt on every pass, so removed
 * clusters fall out; another instance's write changes the text and is parsed as before.
 */
const seenStates = () => processSingleton("enrollment-seen", () => ({ value: new Map<string, SeenState>() }));
type SeenState = { text: string | null; states: string };

const statesOf = (items: { key: string; state: ChecklistState }[]) => items.map((i) => `${i.key}=${i.state}`).join(",");

type EnrollmentEvent = ClusterEventRow & { kind: "enrollment"; fromValue: string };

const cluster = columns("Cluster");
const ENROLLMENT_COLUMNS = [
  ["id", "text"],
  ["enrollment", "text"],
  ["enrolledAt", "timestamp(3)"],
] as const satisfies readonly ValuesColumn<Column<"Cluster">>[];

/**
 * Evaluates every cluster's checklist from stored facts, writes the ones whose item states
 * changed, and moves clusters between Enrolling and Enrolled (enrolledAt set when every item
 * passes, cleared when one stops passing). Safe on several instances: the result is the same.
 */
export async function evaluateEnrollment(now = new Date()): Promise<{ changed: number; enrolled: number; total: number }> {
  const settings = await getSettings();
  // A group with an invalid stored selector counts for no cluster (and is logged once), but it
  // exists: group membership applies from the first group on.
  const stored = await db().clusterGroup.findMany({ select: { id: true, name: true, selector: true } });
  const fleetGroupCount = stored.length;
  const groups = stored.flatMap((gr): Selector[] => {
    const selector = usableGroupSelector(gr);
    return selector ? [selector] : [];
  });
  const summary: EnrollmentSummary = { at: now.toISOString(), total: 0, enrolled: 0, blockedBy: {}, labels: {} };
  const seenBefore = seenStates().value;
  const seen = new Map<string, SeenState>();
  let changed = 0;
  let after: string | null = null;
  for (;;) {
    const page = await enrollmentPage(after, PAGE);
    if (!page.length) break;
    const updates: (readonly [string, string, Date | null])[] = [];
    const events: EnrollmentEvent[] = [];
    for (const c of page) {
      const labels = Object.fromEntries(c.labels.map((l) => [l.key, l.value]));
      const groupCount = groups.filter((s) => matchesSelector(labels, s)).length;
      const items = enrollmentChecklist(
        { ...c, labels, groupCount, fleetGroupCount },
        settings.requiredLabels,
        now,
        settings.notReadyThresholdSeconds,
      );
      const complete = items.every((i) => i.ok);
      summary.total++;
      if (complete) summary.enrolled++;
      for (const i of items) summary.labels[i.key] = i.label;
      for (const key of blockingItems(items.filter((i) => !i.ok).map((i) => i.key)))
        summary.blockedBy[key] = (summary.blockedBy[key] ?? 0) + 1;
      const states = statesOf(items);
      const enrolledAt = complete ? (c.enrolledAt ?? now) : null;
      const enrolledAtSame = (enrolledAt?.getTime() ?? null) === (c.enrolledAt?.getTime() ?? null);
      const known = seenBefore.get(c.id);
      if (known && known.text === c.enrollment && known.states === states && enrolledAtSame) {
        seen.set(c.id, known);
        continue;
      }
      const next = mergeEnrollment(parseStored(c.enrollment), items, now);
      const nextText = JSON.stringify(next);
      seen.set(c.id, { text: nextText, states });
      if (nextText === c.enrollment && enrolledAtSame) continue;
      updates.push([c.id, nextText, enrolledAt]);
      if (!!c.enrolledAt !== complete) {
        events.push({
          clusterId: c.id,
          clusterName: c.name,
          kind: "enrollment",
          fromValue: c.enrolledAt ? "Enrolled" : "Enrolling",
          toValue: complete ? "Enrolled" : "Enrolling",
          reason: complete
            ? "every checklist item passes"
            : `blocked: ${items
                .filter((i) => !i.ok)
                .map((i) => i.key)
                .join(", ")}`,
          at: now,
        });
      }
    }
    // A wave of new clusters changes a whole page at once: a few multi-row statements per page
    // (lib/server/db/bulk-update.ts), where one Prisma update each is compiled on the event loop,
    // run on the driver (Prisma would still plan each raw statement, every parameter serialised).
    for (let i = 0; i < updates.length; i += WRITE_CHUNK) {
      const chunk = updates.slice(i, i + WRITE_CHUNK);
      const ids = new Set(chunk.map(([id]) => id));
      const chunkEvents = events.filter((e) => ids.has(e.clusterId));
      await runOnDriver([
        ...updateFromValuesStatements(
          "Cluster",
          ENROLLMENT_COLUMNS,
          chunk,
          (v) => sql`${cluster("enrollment")} = ${v("enrollment")}, ${cluster("enrolledAt")} = ${v("enrolledAt")}`,
          WRITE_CHUNK,
        ).map((s) => s.q),
        ...(chunkEvents.length ? [insertInto("ClusterEvent", chunkEvents)] : []),
      ]);
      changed += chunk.length + chunkEvents.length;
      await yieldToEventLoop();
    }
    after = page[page.length - 1]!.id;
    if (page.length < PAGE) break;
    await yieldToEventLoop();
  }
  seenStates().value = seen;
  // Pages opened before this instance's first evaluation show "not checked yet" until told.
  const first = lastSummary().value === null;
  lastSummary().value = summary;
  if (changed || first) publish({ type: "fleet.enrollment", ...summary });
  return { changed, enrolled: summary.enrolled, total: summary.total };
}
