import "server-only";
import { enrollmentChecklist, type ChecklistItem, type ChecklistState } from "@/lib/domain/enrollment";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { db } from "@/lib/server/db/client";
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

/** The columns enrollmentChecklist judges a cluster on (the evaluator and the gate read them). */
export const enrollmentFactsSelect = {
  registeredAt: true,
  phase: true,
  lastHeartbeatAt: true,
  apiServerHealth: true,
  desiredPolicyRevision: true,
  appliedPolicyRevision: true,
  logsReporting: true,
  metricsReporting: true,
  labels: { select: { key: true, value: true } },
} as const;

/** Merges a fresh checklist into what was stored: `since` moves only when an item's state changes. */
export function mergeEnrollment(stored: StoredEnrollment, items: ChecklistItem[], now: Date): StoredEnrollment {
  return Object.fromEntries(
    items.map((i) => [i.key, stored[i.key]?.state === i.state ? stored[i.key]! : { state: i.state, since: now.toISOString() }]),
  );
}

// Small pages with a yield between them: the evaluator shares the event loop with heartbeats
// and page loads, and a 1,000-cluster page held it for hundreds of milliseconds.
const PAGE = 200;
/** changed clusters whose writes share one transaction */
const WRITE_CHUNK = 25;
const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Evaluates every cluster's checklist from stored facts, writes the ones whose item states
 * changed, and moves clusters between Enrolling and Enrolled (enrolledAt set when every item
 * passes, cleared when one stops passing). Safe on several instances: the result is the same.
 */
export async function evaluateEnrollment(now = new Date()): Promise<{ changed: number; enrolled: number; total: number }> {
  const settings = await getSettings();
  // A group with an invalid stored selector counts for no cluster (and is logged once).
  const groups = (await db().clusterGroup.findMany({ select: { id: true, name: true, selector: true } })).flatMap(
    (gr): Selector[] => {
      const selector = usableGroupSelector(gr);
      return selector ? [selector] : [];
    },
  );
  const summary: EnrollmentSummary = { at: now.toISOString(), total: 0, enrolled: 0, blockedBy: {}, labels: {} };
  let changed = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await db().cluster.findMany({
      select: { id: true, name: true, ...enrollmentFactsSelect, enrollment: true, enrolledAt: true },
      orderBy: { id: "asc" },
      take: PAGE,
      ...(cursor ? { skip: 1, cursor: { id: cursor } } : {}),
    });
    if (!page.length) break;
    const writes = [];
    /** where each changed cluster's writes start (its update, and its event on a change of state) */
    const starts: number[] = [];
    for (const c of page) {
      const labels = Object.fromEntries(c.labels.map((l) => [l.key, l.value]));
      const groupCount = groups.filter((s) => matchesSelector(labels, s)).length;
      const items = enrollmentChecklist(
        { ...c, labels, groupCount },
        settings.requiredLabels,
        now,
        settings.notReadyThresholdSeconds,
      );
      const complete = items.every((i) => i.ok);
      summary.total++;
      if (complete) summary.enrolled++;
      for (const i of items) {
        summary.labels[i.key] = i.label;
        if (!i.ok) summary.blockedBy[i.key] = (summary.blockedBy[i.key] ?? 0) + 1;
      }
      const before = parseStored(c.enrollment);
      const next = mergeEnrollment(before, items, now);
      const nextText = JSON.stringify(next);
      const enrolledAt = complete ? (c.enrolledAt ?? now) : null;
      if (nextText === c.enrollment && (enrolledAt?.getTime() ?? null) === (c.enrolledAt?.getTime() ?? null)) continue;
      starts.push(writes.length);
      writes.push(db().cluster.update({ where: { id: c.id }, data: { enrollment: nextText, enrolledAt } }));
      if (!!c.enrolledAt !== complete) {
        writes.push(
          db().clusterEvent.create({
            data: {
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
            },
          }),
        );
      }
    }
    // Prisma compiles a batch on the event loop (~0.2 ms an operation): a page of 200 changed
    // clusters (a wave of new ones) in one batch held heartbeats up for 100 ms and more. So a
    // few clusters' writes per transaction, yielding in between.
    for (let i = 0; i < starts.length; i += WRITE_CHUNK) {
      const chunk = writes.slice(starts[i], starts[i + WRITE_CHUNK] ?? writes.length);
      await db().$transaction(chunk);
      changed += chunk.length;
      await yieldToEventLoop();
    }
    cursor = page[page.length - 1]!.id;
    if (page.length < PAGE) break;
    await yieldToEventLoop();
  }
  // Pages opened before this instance's first evaluation show "not checked yet" until told.
  const first = lastSummary().value === null;
  lastSummary().value = summary;
  if (changed || first) publish({ type: "fleet.enrollment", ...summary });
  return { changed, enrolled: summary.enrolled, total: summary.total };
}
