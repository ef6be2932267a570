import { errorText } from "../../domain/error-text";
import type { LogCode, LogFields, LogLevel } from "../log";
import { slimNode, type KubeNode } from "./facts-from-cluster";
import type { KubeClient, WatchEvent } from "./kube-client";

// The cluster's nodes, kept current the way client-go's informers keep them: one paged LIST, then
// a WATCH from its resourceVersion that applies each change as it comes. A round then costs the
// API server nothing for nodes unless they changed (a full Node list of a 5,000-node cluster is
// about 100 MB of JSON). A watch that ends is started again from the last resourceVersion seen;
// one that fails (410 Gone once the API server no longer keeps that revision, a lost connection)
// is dropped, and the next round lists again.

/**
 * Nodes per page: a node as the API server sends it is ~20 KB (managedFields, images), so a page
 * of 500 is ~10 MB of JSON held three times over (bytes, text, objects) while it is read.
 */
export const NODE_PAGE = 100;
/** How long one watch request runs before the API server ends it and it is started again. */
export const NODE_WATCH_SECONDS = 300;

export interface NodeWatchOptions {
  client: KubeClient;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

export class NodeWatch {
  private nodes = new Map<string, KubeNode>();
  /** Where the watch goes on from; null: the nodes must be listed again. */
  private resourceVersion: string | null = null;
  private watching: Promise<void> | null = null;
  private readonly stop = new AbortController();
  /** Full lists made (the first, and one after each failed watch). */
  lists = 0;

  constructor(private readonly o: NodeWatchOptions) {}

  /** The nodes as last known (slim: only the fields the agent reads). */
  get current(): KubeNode[] {
    return [...this.nodes.values()];
  }

  /** Whether the nodes are current without a list (the watch runs). */
  get live(): boolean {
    return this.watching !== null && this.resourceVersion !== null;
  }

  /**
   * Brings the nodes up to date: nothing while the watch runs, else a full list (kept only when
   * complete) and a watch from it. Throws when the list fails; the last nodes stay.
   */
  async sync(signal?: AbortSignal): Promise<void> {
    if (this.live) return;
    const { into, resourceVersion } = await this.o.client.listAll<KubeNode, Map<string, KubeNode>>(
      "listNodes",
      "/api/v1/nodes",
      () => new Map(),
      (into, items) => {
        for (const node of items) into.set(node.metadata.name, slimNode(node));
      },
      { signal, limit: NODE_PAGE },
    );
    this.lists += 1;
    this.nodes = into;
    this.resourceVersion = resourceVersion ?? null;
    if (this.resourceVersion && !this.stop.signal.aborted) this.watching = this.watchLoop();
  }

  private async watchLoop(): Promise<void> {
    try {
      while (!this.stop.signal.aborted && this.resourceVersion) {
        await this.o.client.watch<KubeNode>("watchNodes", "/api/v1/nodes", {
          resourceVersion: this.resourceVersion,
          timeoutSeconds: NODE_WATCH_SECONDS,
          signal: this.stop.signal,
          onEvent: (e) => this.apply(e),
        });
      }
    } catch (err) {
      if (!this.stop.signal.aborted) {
        this.o.log("debug", "KUBE_API_ERROR", `the watch of nodes ended (${errorText(err)}): the next round lists them again`);
      }
      this.resourceVersion = null;
    } finally {
      this.watching = null;
    }
  }

  private apply(e: WatchEvent<KubeNode>) {
    const rv = e.object.metadata?.resourceVersion;
    if (e.type === "ADDED" || e.type === "MODIFIED") this.nodes.set(e.object.metadata.name, slimNode(e.object));
    else if (e.type === "DELETED") this.nodes.delete(e.object.metadata.name);
    if (rv) this.resourceVersion = rv;
  }

  close(): void {
    this.stop.abort();
  }
}
