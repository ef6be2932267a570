import "server-only";
import https from "node:https";
import net from "node:net";
import type { HubKubeconfig } from "@/lib/domain/kubeconfig";
import { connectionFailure, pinnedLookup, type CheckedAddress } from "@/lib/server/net/pinned-address";
import { resolveTarget, TargetRefused, type TargetRule } from "@/lib/server/webhooks/post-webhook";

// A small Kubernetes REST client for Cluster API sources: the management cluster (list and watch
// Clusters and Namespaces, read the kubeconfig Secrets, annotate a Cluster) and the workload clusters
// (server-side apply of the agent's objects). Plain https rather than @kubernetes/client-node: a watch
// is a stream we read line by line with our own deadlines, and every connection goes to an address
// checked first (resolveTarget) with only the kubeconfig's inline credentials, never another lookup's
// answer. The answer bodies of the API server are not kept: errors say the status and the resource.

const REQUEST_TIMEOUT_MS = 15_000;
/** A watch that brings nothing (not even a bookmark) this long after its own timeout is dead. */
const WATCH_SLACK_MS = 30_000;
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** A failed call: `reason` is unauthorized, forbidden, not_found, conflict, expired, http_<code>, network, timeout, target_not_allowed. */
export class KubeError extends Error {
  constructor(
    readonly reason: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = "KubeError";
  }
}

const REASONS: Record<number, string> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "expired",
};

/** "namespaces", "clusters.cluster.x-k8s.io", "secrets": the resource a path names, for error messages. */
export function resourceOf(path: string): string {
  const parts = path.split("?")[0]!.split("/").filter(Boolean);
  const group = parts[0] === "apis" ? parts[1] : undefined;
  const rest = parts.slice(parts[0] === "apis" ? 3 : 2);
  const plural = rest[0] === "namespaces" && rest.length > 2 ? rest[2] : rest[0];
  // A group's discovery path (/apis/<group>) names no resource: say the group.
  if (group) return plural ? `${plural}.${group}` : `the ${group} API group`;
  return plural ?? "the API";
}

export type WatchEvent = { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: Record<string, unknown> };

export type KubeList = { items: Record<string, unknown>[]; resourceVersion: string };

export class KubeClient {
  private agent: https.Agent | null = null;
  private target: CheckedAddress | null = null;
  private readonly url: URL;

  /** `config` is a checked kubeconfig (lib/domain/kubeconfig.ts); `rule` words a refused address. */
  constructor(
    private readonly config: HubKubeconfig,
    private readonly allowPrivate: boolean,
    private readonly rule: TargetRule,
  ) {
    this.url = new URL(config.server);
  }

  get server(): string {
    return this.config.server;
  }

  close() {
    this.agent?.destroy();
    this.agent = null;
  }

  /** The keep-alive agent, created once; every new connection goes to the address checked last. */
  private async connection(): Promise<https.Agent> {
    try {
      this.target = await resolveTarget(this.url.hostname, this.allowPrivate, this.rule);
    } catch (err) {
      if (err instanceof TargetRefused) throw new KubeError("target_not_allowed", null, err.message);
      throw err;
    }
    if (this.agent) return this.agent;
    const pem = (b64: string | undefined) => (b64 ? Buffer.from(b64, "base64").toString("utf8") : undefined);
    const host = this.url.hostname.replace(/^\[|\]$/g, "");
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: 8,
      lookup: pinnedLookup(() => this.target),
      ca: pem(this.config.cluster.caData),
      cert: pem(this.config.user.certData),
      key: pem(this.config.user.keyData),
      servername: this.config.cluster.tlsServerName ?? (net.isIP(host) ? undefined : host),
    });
    return this.agent;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return {
      accept: "application/json",
      "user-agent": "fleet-registry-cluster-api",
      ...(this.config.user.token ? { authorization: `Bearer ${this.config.user.token}` } : {}),
      ...extra,
    };
  }

  private fail(err: unknown, what: string): KubeError {
    if (err instanceof KubeError) return err;
    return new KubeError("network", null, `${this.config.server} could not be reached for ${what} (${connectionFailure(err)})`);
  }

  /** One request answering JSON; a non-2xx answer throws KubeError naming the status and resource. */
  async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<Record<string, unknown>> {
    const what = `${method} ${resourceOf(path)}`;
    const agent = await this.connection();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(this.url.pathname.replace(/\/$/, "") + path, this.url.origin),
        {
          method,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: this.headers(
            payload === undefined ? {} : { "content-type": contentType, "content-length": String(Buffer.byteLength(payload)) },
          ),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES)
              req.destroy(new KubeError("network", null, `${what} answered more than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(c);
          });
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              return reject(new KubeError(REASONS[status] ?? `http_${status}`, status, `${status} on ${resourceOf(path)}`));
            }
            try {
              resolve(chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {});
            } catch {
              reject(new KubeError("network", status, `${what} answered something other than JSON`));
            }
          });
          res.on("error", (err) => reject(this.fail(err, what)));
        },
      );
      req.on("timeout", () =>
        req.destroy(new KubeError("timeout", null, `${what} got no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
      );
      req.on("error", (err) => reject(this.fail(err, what)));
      req.end(payload);
    });
  }

  get(path: string) {
    return this.request("GET", path);
  }

  /** Every page of a list (limit/continue), and the resourceVersion to watch from. */
  async list(path: string, query: Record<string, string> = {}): Promise<KubeList> {
    const items: Record<string, unknown>[] = [];
    let token: string | undefined;
    let resourceVersion = "";
    do {
      const qs = new URLSearchParams({ ...query, limit: "500", ...(token ? { continue: token } : {}) });
      const page = await this.get(`${path}?${qs}`);
      const meta = (page.metadata ?? {}) as { continue?: string; resourceVersion?: string };
      items.push(...((page.items as Record<string, unknown>[] | undefined) ?? []));
      token = meta.continue || undefined;
      resourceVersion = meta.resourceVersion ?? resourceVersion;
    } while (token);
    return { items, resourceVersion };
  }

  /**
   * Watches `path` from `resourceVersion` with bookmarks, calling `onEvent` for each event in order.
   * Resolves when the server ends the watch (its timeout, a dropped connection) or `signal` aborts;
   * throws KubeError `expired` when the version is too old (410: list again), or any other failure.
   */
  async watch(
    path: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => Promise<void> | void,
    signal: AbortSignal,
    timeoutSeconds = 300,
  ): Promise<void> {
    const what = `the watch of ${resourceOf(path)}`;
    const agent = await this.connection();
    // An abort before the listener below exists would never fire: a stopped watcher starts nothing.
    if (signal.aborted) return;
    const qs = new URLSearchParams({
      watch: "true",
      resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(timeoutSeconds),
    });
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal.removeEventListener("abort", abort);
        if (err) reject(err);
        else resolve();
      };
      let deadline = setTimeout(() => req.destroy(), timeoutSeconds * 1000 + WATCH_SLACK_MS);
      // Events are handled one at a time, in order, even when a handler waits on the database.
      let chain = Promise.resolve();
      // Stopped: the event being handled ends first (so nothing, its resourceVersion included, is
      // written after the watcher's stop returns); events not yet started are dropped.
      let stopping = false;
      const abort = () => {
        stopping = true;
        req.destroy();
        void chain.then(
          () => finish(),
          () => finish(),
        );
      };
      signal.addEventListener("abort", abort, { once: true });
      const req = https.request(
        new URL(`${this.url.pathname.replace(/\/$/, "")}${path}?${qs}`, this.url.origin),
        { method: "GET", agent, headers: this.headers({}) },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            res.resume();
            return finish(new KubeError(REASONS[status] ?? `http_${status}`, status, `${status} on ${resourceOf(path)} (watch)`));
          }
          let buffered = "";
          res.setEncoding("utf8");
          res.on("data", (text: string) => {
            buffered += text;
            let nl: number;
            while ((nl = buffered.indexOf("\n")) >= 0) {
              const line = buffered.slice(0, nl).trim();
              buffered = buffered.slice(nl + 1);
              if (!line) continue;
              chain = chain.then(async () => {
                if (settled || stopping) return;
                const event = JSON.parse(line) as { type?: string; object?: Record<string, unknown> };
                if (event.type === "ERROR") {
                  const code = Number((event.object as { code?: unknown } | undefined)?.code);
                  req.destroy();
                  return finish(
                    new KubeError(REASONS[code] ?? `http_${code}`, code || null, `${code} on ${resourceOf(path)} (watch)`),
                  );
                }
                await onEvent(event as WatchEvent);
              });
              chain.catch((err) => {
                req.destroy();
                finish(err);
              });
            }
          });
          res.on("end", () => void chain.then(() => finish()));
          res.on("error", () => void chain.then(() => finish()));
          res.on("close", () => void chain.then(() => finish()));
          clearTimeout(deadline);
          deadline = setTimeout(() => req.destroy(), timeoutSeconds * 1000 + WATCH_SLACK_MS);
        },
      );
      req.on("error", (err) => {
        if (!signal.aborted) finish(this.fail(err, what));
      });
      req.end();
    });
  }

  /** Server-side apply of one object at `path` (its own), as `fieldManager`, taking over conflicting fields. */
  apply(path: string, object: unknown, fieldManager: string) {
    const qs = new URLSearchParams({ fieldManager, force: "true" });
    return this.request("PATCH", `${path}?${qs}`, object, "application/apply-patch+yaml");
  }
}

/** The REST path of an object of the agent's manifest (or any namespaced or cluster-scoped kind). */
export function objectPath(o: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): string {
  const plural = PLURALS[o.kind];
  if (!plural) throw new Error(`no REST path known for kind ${o.kind}`);
  const base = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const ns = o.metadata.namespace ? `/namespaces/${encodeURIComponent(o.metadata.namespace)}` : "";
  return `${base}${ns}/${plural}/${encodeURIComponent(o.metadata.name)}`;
}

const PLURALS: Record<string, string> = {
  Namespace: "namespaces",
  ServiceAccount: "serviceaccounts",
  Secret: "secrets",
  ConfigMap: "configmaps",
  Service: "services",
  Role: "roles",
  RoleBinding: "rolebindings",
  ClusterRole: "clusterroles",
  ClusterRoleBinding: "clusterrolebindings",
  Deployment: "deployments",
  Lease: "leases",
  NetworkPolicy: "networkpolicies",
  PodDisruptionBudget: "poddisruptionbudgets",
};
