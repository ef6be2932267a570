import "server-only";
import {
  CAPI_GROUP,
  CAPI_VERSIONS,
  DO_NOT_IMPORT_ANNOTATION,
  fleetClusterName,
  optedIn,
  readCapiCluster,
  type CapiClusterFacts,
} from "@/lib/domain/cluster-api";
import { errorText } from "@/lib/domain/error-text";
import type { Labels } from "@/lib/domain/labels";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";
import { KubeClient, KubeError } from "./kube-client";
import { CAPI_RULE, recordSourceError, type LoadedSource } from "./sources";

// One source's watch of CAPI Clusters: list, then watch from the list's resourceVersion (with
// bookmarks), resuming from the last version seen after a broken watch or a restart, and listing
// again on 410 (the version was compacted). Every Cluster seen is a CapiCluster row; one missing
// from a list is marked gone, so a deletion that happened while nobody watched is still seen. Each
// configured namespace is its own list and watch (credentials may be a Role in each); no namespace
// configured watches them all. A row changed is made due (nextAttemptAt): the importer takes it on its next run.

const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 60_000;

type Versions = Record<string, string>;

export class SourceWatcher {
  readonly client: KubeClient;
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];
  /** Opted-in namespaces (the opt-in label on the Namespace), refreshed by refreshNamespaces. */
  private namespaceLabels = new Map<string, Labels>();
  version: string | null = null;

  constructor(readonly source: LoadedSource) {
    this.client = new KubeClient(source.kubeconfig, source.allowPrivateTargets, CAPI_RULE);
  }

  start() {
    const targets = this.source.namespaces.length ? this.source.namespaces : ["*"];
    for (const target of targets) this.loops.push(this.run(target));
  }

  async stop() {
    this.abort.abort();
    await Promise.allSettled(this.loops);
    this.client.close();
  }

  private get stopped() {
    return this.abort.signal.aborted;
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.abort.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }

  /**
   * The resourceVersion each target's watch resumes from, read from the source's row once and
   * written back with every change (this instance alone watches the source while it holds the lease).
   */
  private versions: Versions | null = null;

  private async savedVersion(target: string): Promise<string | null> {
    if (!this.versions) {
      const row = await db().capiSource.findUnique({ where: { id: this.source.id }, select: { resourceVersion: true } });
      this.versions = row?.resourceVersion ? (JSON.parse(row.resourceVersion) as Versions) : {};
    }
    return this.versions[target] ?? null;
  }

  private async saveVersion(target: string, rv: string | null) {
    this.versions ??= {};
    if (rv) this.versions[target] = rv;
    else delete this.versions[target];
    await db().capiSource.updateMany({ where: { id: this.source.id }, data: { resourceVersion: JSON.stringify(this.versions) } });
  }

  /** The CAPI version the management cluster serves, preferred first; saved for the console. */
  private async discover(): Promise<string> {
    if (this.version) return this.version;
    let served: string[];
    try {
      const group = await this.client.get(`/apis/${CAPI_GROUP}`);
      served = ((group.versions as { version?: string }[] | undefined) ?? []).map((v) => v.version ?? "");
    } catch (err) {
      if (err instanceof KubeError && err.reason === "not_found")
        throw new KubeError(
          "not_found",
          404,
          `Cluster API is not installed on ${this.client.server} (no ${CAPI_GROUP} API group)`,
        );
      throw err;
    }
    const version = CAPI_VERSIONS.find((v) => served.includes(v));
    if (!version)
      throw new KubeError(
        "not_found",
        404,
        `${this.client.server} serves ${CAPI_GROUP} only at ${served.join(", ") || "no version"}; v1beta1 or v1beta2 is needed`,
      );
    this.version = version;
    await db().capiSource.updateMany({ where: { id: this.source.id }, data: { servedVersion: version } });
    return version;
  }

  private path(version: string, target: string) {
    const ns = target === "*" ? "" : `/namespaces/${encodeURIComponent(target)}`;
    return `/apis/${CAPI_GROUP}/${version}${ns}/clusters`;
  }

  private async run(target: string) {
    let failures = 0;
    while (!this.stopped) {
      try {
        const version = await this.discover();
        let rv = await this.savedVersion(target);
        if (!rv) rv = await this.relist(version, target);
        failures = 0;
        await recordSourceError(this.source.id, null);
        await this.client.watch(
          this.path(version, target),
          rv,
          async (event) => {
            const meta = (event.object.metadata ?? {}) as { resourceVersion?: string };
            if (event.type !== "BOOKMARK") {
              const facts = readCapiCluster(event.object);
              if (facts) await this.record(facts, event.type === "DELETED");
            }
            if (meta.resourceVersion) await this.saveVersion(target, meta.resourceVersion);
          },
          this.abort.signal,
        );
        // The server ended the watch (its timeout, a dropped connection): watch again from the version saved.
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof KubeError && err.reason === "expired") {
          // Compacted: a full list brings back what the watch missed, deletions included.
          await this.saveVersion(target, null);
          continue;
        }
        failures++;
        incCounter("fleet_cluster_api_watch_errors_total", "Cluster API source watches that failed (retried), by reason", {
          reason: err instanceof KubeError ? err.reason : "error",
        });
        const message = err instanceof KubeError ? err.message : errorText(err);
        await recordSourceError(
          this.source.id,
          `Watching ${target === "*" ? "all namespaces" : `namespace ${target}`}: ${message}`,
        ).catch(() => {});
        if (failures === 1) log.warn("Cluster API source watch failed", { source: this.source.name, target, error: message });
        if (err instanceof KubeError && err.reason === "not_found") this.version = null;
        await this.sleep(Math.min(RETRY_MIN_MS * 2 ** (failures - 1), RETRY_MAX_MS));
      }
    }
  }

  /** A full list of one target: every Cluster recorded as seen now, the rest of the target marked gone. */
  private async relist(version: string, target: string): Promise<string> {
    await this.refreshNamespaces();
    const syncAt = new Date();
    const list = await this.client.list(this.path(version, target));
    for (const item of list.items) {
      const facts = readCapiCluster(item);
      if (facts) await this.record(facts, false, syncAt);
    }
    await db().capiCluster.updateMany({
      where: {
        sourceId: this.source.id,
        ...(target === "*" ? {} : { namespace: target }),
        seenAt: { lt: syncAt },
        goneAt: null,
      },
      data: { goneAt: syncAt, nextAttemptAt: syncAt },
    });
    await db().capiSource.updateMany({ where: { id: this.source.id }, data: { lastSyncAt: syncAt } });
    await this.saveVersion(target, list.resourceVersion);
    return list.resourceVersion;
  }

  /**
   * Reads which namespaces carry the opt-in label and updates the rows of those whose answer
   * changed. Listing namespaces may be refused (credentials for Clusters and Secrets only): then
   * only the label on each Cluster counts, and the source says so.
   */
  async refreshNamespaces(): Promise<void> {
    let next: Map<string, Labels>;
    try {
      const qs = new URLSearchParams({ labelSelector: `${this.source.optInLabel}=true` });
      const list = await this.client.list(`/api/v1/namespaces`, Object.fromEntries(qs));
      next = new Map(
        list.items.map((n) => {
          const meta = (n.metadata ?? {}) as { name?: string; labels?: Labels };
          return [meta.name ?? "", meta.labels ?? {}];
        }),
      );
    } catch (err) {
      if (err instanceof KubeError && err.reason === "forbidden") {
        await recordSourceError(
          this.source.id,
          "Namespaces cannot be listed (403): only the opt-in label on each Cluster counts",
        );
        return;
      }
      throw err;
    }
    const changed = [...new Set([...this.namespaceLabels.keys(), ...next.keys()])].filter(
      (ns) => this.namespaceLabels.has(ns) !== next.has(ns),
    );
    this.namespaceLabels = next;
    for (const namespace of changed) {
      const rows = await db().capiCluster.findMany({
        where: { sourceId: this.source.id, namespace },
        select: { id: true, labels: true, optedIn: true },
      });
      for (const r of rows) {
        const now = optedIn(JSON.parse(r.labels) as Labels, next.get(namespace), this.source.optInLabel);
        if (now !== r.optedIn)
          await db().capiCluster.update({ where: { id: r.id }, data: { optedIn: now, nextAttemptAt: new Date() } });
      }
    }
  }

  /** One Cluster seen (or deleted): its row created or brought up to date, and due for the importer. */
  private async record(facts: CapiClusterFacts, deleted: boolean, seenAt = new Date()) {
    const data = {
      uid: facts.uid,
      optedIn: optedIn(facts.labels, this.namespaceLabels.get(facts.namespace), this.source.optInLabel),
      capiPhase: facts.phase,
      conditions: JSON.stringify(facts.conditions),
      labels: JSON.stringify(facts.labels),
      infrastructureProvider: facts.infrastructureProvider,
      kubernetesVersion: facts.kubernetesVersion,
      topologyClass: facts.topologyClass,
      controlPlaneInitialized: facts.controlPlaneInitialized,
      capiCreatedAt: facts.createdAt ? new Date(facts.createdAt) : null,
      deletingSince: facts.deletingSince ? new Date(facts.deletingSince) : null,
      // The annotation alone (set by hand, or surviving a source added again) also keeps it out.
      annotatedExcluded: facts.annotations[DO_NOT_IMPORT_ANNOTATION] !== undefined,
      goneAt: deleted ? seenAt : null,
      seenAt,
    };
    const key = { sourceId_namespace_name: { sourceId: this.source.id, namespace: facts.namespace, name: facts.name } };
    await db().capiCluster.upsert({
      where: key,
      create: {
        sourceId: this.source.id,
        namespace: facts.namespace,
        name: facts.name,
        fleetName: fleetClusterName(this.source.name, facts.namespace, facts.name),
        step: "not-opted-in",
        nextAttemptAt: seenAt,
        ...data,
      },
      update: data,
    });
    // Due now, unless a failed step is backing off (a status update of the Cluster does not cut the wait short).
    await db().capiCluster.updateMany({
      where: { ...key.sourceId_namespace_name, attempts: 0 },
      data: { nextAttemptAt: seenAt },
    });
  }
}
