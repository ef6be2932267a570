import "server-only";
import { randomId } from "@/lib/server/auth/secrets";
import { db } from "@/lib/server/db/client";
import { processSingleton } from "@/lib/server/process-singletons";
import { importDueClusters, type ImportContext } from "./import-clusters";
import { loadSources, recordSourceError } from "./sources";
import { SourceWatcher } from "./watch-source";

// The Cluster API job: each run claims (or renews) the sources this instance watches, starts and
// stops their watchers to match, and advances the due clusters of those sources. One instance
// watches a source at a time, whichever holds its lease (a conditional update, so it works alike on
// SQLite and on PostgreSQL shared by several instances); a lease not renewed for LEASE_MS (an
// instance stopped or lost) is taken over by the next run of another.

export const CLUSTER_API_EVERY_MS = 2_000;
const LEASE_MS = 30_000;
/** A full list this often besides the watch: namespace labels, settings and anything a watch missed. */
const RESYNC_MS = 10 * 60_000;
const NAMESPACES_EVERY_MS = 60_000;

type Watching = { watcher: SourceWatcher; startedAt: number; namespacesAt: number };

const state = () =>
  processSingleton("cluster-api-controller", () => ({
    instanceId: `capi-${randomId(12)}`,
    watching: new Map<string, Watching>(),
  }));

/** One run of the job. `now` is for tests. */
export async function runClusterApi(now = new Date()): Promise<void> {
  const s = state();
  const { sources, failed } = await loadSources();
  for (const f of failed) await recordSourceError(f.id, f.error);

  const held = new Set<string>();
  for (const source of sources) {
    const claim = await db().capiSource.updateMany({
      where: {
        id: source.id,
        OR: [{ watcherId: s.instanceId }, { watcherId: null }, { watchLeaseUntil: null }, { watchLeaseUntil: { lt: now } }],
      },
      data: { watcherId: s.instanceId, watchLeaseUntil: new Date(now.getTime() + LEASE_MS) },
    });
    if (claim.count === 1) held.add(source.id);
  }

  for (const [id, w] of s.watching) {
    const source = sources.find((x) => x.id === id);
    const stale = now.getTime() - w.startedAt >= RESYNC_MS;
    if (!source || !held.has(id) || source.revision !== w.watcher.source.revision || stale) {
      s.watching.delete(id);
      await w.watcher.stop();
      // A resync lists again: the watch resumes from nothing.
      if (stale) await db().capiSource.updateMany({ where: { id }, data: { resourceVersion: null } });
    }
  }
  for (const source of sources) {
    if (!held.has(source.id) || s.watching.has(source.id)) continue;
    const watcher = new SourceWatcher(source);
    watcher.start();
    s.watching.set(source.id, { watcher, startedAt: now.getTime(), namespacesAt: now.getTime() });
  }

  const contexts = new Map<string, ImportContext>();
  for (const [id, w] of s.watching) {
    if (now.getTime() - w.namespacesAt >= NAMESPACES_EVERY_MS) {
      w.namespacesAt = now.getTime();
      await w.watcher.refreshNamespaces().catch(() => {});
    }
    contexts.set(id, { source: w.watcher.source, client: w.watcher.client, version: w.watcher.version });
  }
  await importDueClusters(contexts, now);
}

/** Stops this instance's watchers and gives up its leases, so another instance takes over at once. */
export async function stopClusterApi(): Promise<void> {
  const s = state();
  const ids = [...s.watching.keys()];
  await Promise.all([...s.watching.values()].map((w) => w.watcher.stop()));
  s.watching.clear();
  if (ids.length)
    await db().capiSource.updateMany({
      where: { id: { in: ids }, watcherId: s.instanceId },
      data: { watcherId: null, watchLeaseUntil: null },
    });
}

/** Whether this instance watches the source now (tests, and the console's "watching"). */
export function watchesSource(id: string): boolean {
  return state().watching.has(id);
}
