import { countPods, type KubePod, type PodCounts } from "./facts-from-cluster";
import { ACCEPT_METADATA_LIST, isExpiredContinue, type KubeClient } from "./kube-client";

// The pod count of a big cluster takes longer than a facts round may: a 150,000-pod list is 300
// pages. The count goes on where the last round stopped (its continue token), so it finishes in
// a few rounds instead of never; the other facts are not held up by it. A continue token lives as
// long as etcd keeps its revision (about five minutes): when one has expired (410) the count
// starts over from the first page, as client-go's pager does.

const NON_TERMINAL = "status.phase!=Succeeded,status.phase!=Failed";
/** Pods per page (metadata only: about 1 KB each). */
export const POD_PAGE = 500;

export interface PodCountOptions {
  client: KubeClient;
  /** The agent's namespace and the extra system namespaces: what is not a user pod. */
  namespace: string;
  systemNamespaces?: readonly string[];
}

export class PodCountScan {
  /** The count so far and where the next page starts; null while no count is under way. */
  private partial: { counts: PodCounts; token: string | undefined } | null = null;
  /** Pages read by the count under way (a log line says how far an unfinished count got). */
  pages = 0;

  constructor(private readonly o: PodCountOptions) {}

  /** True while a count has read some pages and stopped at a round's end. */
  get underWay(): boolean {
    return this.partial !== null;
  }

  /**
   * Counts on from where the last call stopped; the complete counts, or null when `signal`
   * stopped it first (the pages read so far are kept for the next call). Other errors are thrown
   * with the progress kept, so a failed page is asked again.
   */
  async run(signal?: AbortSignal): Promise<PodCounts | null> {
    this.partial ??= { counts: { pods: 0, userPods: 0 }, token: undefined };
    this.pages = this.partial.token ? this.pages : 0;
    for (;;) {
      if (signal?.aborted) return null;
      const p = this.partial;
      let page: { items: KubePod[]; continue?: string };
      try {
        page = await this.o.client.listPage<KubePod>("listPods", "/api/v1/pods", {
          fieldSelector: NON_TERMINAL,
          accept: ACCEPT_METADATA_LIST,
          limit: POD_PAGE,
          continue: p.token,
          signal,
        });
      } catch (err) {
        if (signal?.aborted) return null;
        if (isExpiredContinue(err) && p.token) {
          this.partial = { counts: { pods: 0, userPods: 0 }, token: undefined };
          this.pages = 0;
          continue;
        }
        throw err;
      }
      countPods(page.items, this.o.namespace, p.counts, this.o.systemNamespaces);
      this.pages += 1;
      p.token = page.continue;
      if (!p.token) {
        this.partial = null;
        return p.counts;
      }
    }
  }
}
