import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { KUBE_CALLS, type KubeCallName } from "../../domain/agent-kube-calls";
import { ConfigError } from "../errors";
import { EnvProxyAgent, isResetOfReusedSocket } from "../http";
import { AGENT_VERSION } from "../version";

// The agent's way into its cluster's API. @kubernetes/client-node loads the configuration (in a
// pod: the service account's token, re-read by the library as kubelet rotates it, and CA; on a
// laptop: a kubeconfig with whatever credentials it names) and signs each request; the requests
// themselves are plain HTTPS here, because the agent needs what the generated clients do not
// offer: metadata-only lists (PartialObjectMetadataList), explicit patch content types, one
// keep-alive connection. Every request names its call in KUBE_CALLS, whose verbs the manifest's
// RBAC grants.

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Names the agent in the API server's audit log and in its per-client metrics and flow control. */
export const USER_AGENT = `fleet-agent/${AGENT_VERSION}`;

export const ACCEPT_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly call: KubeCallName,
  ) {
    super(message);
    this.name = "KubeApiError";
  }
}

/**
 * The text fields of an error answer, which should be a Kubernetes Status. Only strings are taken:
 * a proxy, an admission webhook or an aggregated API in front may answer any JSON, and its objects
 * would otherwise become "[object Object]" in a directive's failure reason.
 */
export function kubeStatus(body: unknown): { reason?: string; message?: string; causes: string[] } {
  const b = (body && typeof body === "object" ? body : {}) as { reason?: unknown; message?: unknown; details?: unknown };
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const causes = (b.details as { causes?: unknown } | null | undefined)?.causes;
  return {
    reason: text(b.reason),
    message: text(b.message),
    causes: Array.isArray(causes) ? causes.flatMap((c) => text((c as { reason?: unknown } | null)?.reason) ?? []) : [],
  };
}

/** 410 Expired: the continue token (or a watch's resourceVersion) is older than etcd keeps. */
export function isExpiredContinue(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 410;
}

/** The API server accepted the connection but did not answer in time: slow, not gone. */
export class KubeTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KubeTimeoutError";
  }
}

/** One event of a watch; BOOKMARK carries only the resourceVersion reached. */
export interface WatchEvent<T> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

export interface KubeResponse {
  status: number;
  body: unknown;
  latencyMs: number;
}

export interface KubeRequest {
  query?: Record<string, string | number | undefined>;
  accept?: string;
  body?: unknown;
  contentType?: string;
  /** Statuses returned instead of thrown (404 for optional objects, 429 for evictions). */
  allow?: number[];
  /** Raw text instead of JSON (/readyz). */
  text?: boolean;
  /** Abandons the request (a facts round past its deadline). */
  signal?: AbortSignal;
}

const METHOD_OF_VERB = {
  get: "GET",
  list: "GET",
  watch: "GET",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  create: "POST",
} as const;
const MAX_BODY = 64 * 1024 * 1024;

/**
 * Several kubeconfig files (KUBECONFIG=a:b) merged as kubectl merges them: files that do not exist
 * are skipped, the first file to name a cluster, user or context wins it, and the current context
 * is the first one set.
 */
function loadKubeconfigs(list: string): KubeConfig {
  const files = list.split(path.delimiter).filter(Boolean);
  const config = new KubeConfig();
  if (files.length === 1) {
    config.loadFromFile(files[0]!);
    return config;
  }
  const found = files.filter((f) => fs.existsSync(f));
  if (!found.length) throw new Error("none of these files exists");
  const firstByName = <T extends { name: string }>(lists: T[][]): T[] => {
    const byName = new Map<string, T>();
    for (const item of lists.flat()) if (!byName.has(item.name)) byName.set(item.name, item);
    return [...byName.values()];
  };
  const parts = found.map((f) => {
    const part = new KubeConfig();
    part.loadFromFile(f);
    return part;
  });
  config.loadFromOptions({
    clusters: firstByName(parts.map((p) => p.clusters)),
    users: firstByName(parts.map((p) => p.users)),
    contexts: firstByName(parts.map((p) => p.contexts)),
    currentContext: parts.map((p) => p.currentContext).find(Boolean) ?? "",
  });
  return config;
}

/** The kubeconfig's `proxy-url`: an HTTP(S) proxy the connection tunnels through with CONNECT. */
function proxyOf(config: KubeConfig, source: string): URL | null {
  const raw = config.getCurrentCluster()?.proxyUrl;
  if (!raw) return null;
  let proxy: URL | null = null;
  try {
    proxy = new URL(raw);
  } catch {
    // reported below without echoing the value, which may carry credentials
  }
  if (proxy?.protocol !== "http:" && proxy?.protocol !== "https:") {
    throw new ConfigError(
      "CONFIG_INVALID",
      `the ${source} names a proxy-url the agent cannot use${proxy ? ` (${proxy.protocol}//${proxy.host})` : ""}: only http:// and https:// proxies (CONNECT) are supported`,
    );
  }
  return proxy;
}

/** The bytes a TLS agent is built from, comparable between requests. */
function tlsMaterial(opts: https.RequestOptions): string {
  const bytes = (v: unknown): unknown =>
    Buffer.isBuffer(v) ? v.toString("base64") : Array.isArray(v) ? v.map(bytes) : v === undefined ? null : String(v);
  return JSON.stringify([opts.ca, opts.cert, opts.key, opts.servername, opts.rejectUnauthorized].map(bytes));
}

export interface KubeAccess {
  /** --kubeconfig, else KUBECONFIG (several paths joined as kubectl reads them); unset: in-cluster. */
  kubeconfig?: string;
  /** Where the service account's files are (tests lay them out like a pod's). */
  serviceAccountDir?: string;
  timeoutMs: number;
}

export class KubeClient {
  private agent: https.Agent | null = null;
  /** What `agent` was built from: a rotated CA or a new client certificate needs a new one. */
  private agentMaterial = "";
  private readonly proxy: URL | null;

  private constructor(
    private readonly config: KubeConfig,
    private readonly timeoutMs: number,
    /** How the configuration was found, for log lines. */
    readonly source: string,
    /** The service account's namespace when in a pod. */
    readonly podNamespace: string | null,
  ) {
    this.proxy = proxyOf(config, source);
  }

  static load(access: KubeAccess): KubeClient {
    let config = new KubeConfig();
    if (access.kubeconfig) {
      try {
        config = loadKubeconfigs(access.kubeconfig);
      } catch (err) {
        throw new ConfigError("CONFIG_INVALID", `cannot read kubeconfig ${access.kubeconfig}: ${(err as Error).message}`);
      }
      if (!config.getCurrentCluster())
        throw new ConfigError("CONFIG_INVALID", `kubeconfig ${access.kubeconfig} has no current context with a cluster`);
      return new KubeClient(config, access.timeoutMs, `kubeconfig ${access.kubeconfig}`, null);
    }
    const dir = access.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    if (!process.env.KUBERNETES_SERVICE_HOST || !fs.existsSync(path.join(dir, "token"))) {
      throw new ConfigError(
        "CONFIG_INVALID",
        `not running in a Kubernetes pod (no KUBERNETES_SERVICE_HOST or no ${dir}/token): pass --kubeconfig FILE, or --facts simulated for made-up facts`,
      );
    }
    // loadFromCluster reads <prefix>/var/run/secrets/kubernetes.io/serviceaccount/...
    const prefix = dir.endsWith(SERVICE_ACCOUNT_DIR) ? dir.slice(0, -SERVICE_ACCOUNT_DIR.length) : null;
    if (prefix === null) throw new ConfigError("CONFIG_INVALID", `the service account dir must end with ${SERVICE_ACCOUNT_DIR}`);
    config.loadFromCluster(prefix);
    const nsFile = path.join(dir, "namespace");
    const namespace = fs.existsSync(nsFile) ? fs.readFileSync(nsFile, "utf8").trim() || null : null;
    return new KubeClient(config, access.timeoutMs, "in-cluster service account", namespace);
  }

  /** The API server URL of the configuration (the kubeconfig's server, or the in-cluster service). */
  get server(): string {
    return this.config.getCurrentCluster()?.server ?? "";
  }

  /** The PEM of the CA this client trusts for the API server, or null (insecure kubeconfig). */
  caPem(): string | null {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) return null;
    if (cluster.caData) return Buffer.from(cluster.caData, "base64").toString("utf8");
    if (cluster.caFile) return fs.readFileSync(cluster.caFile, "utf8");
    return null;
  }

  close() {
    this.agent?.destroy();
    this.agent = null;
  }

  /** One call of KUBE_CALLS; the method follows from the call's verb. */
  async request(call: KubeCallName, apiPath: string, options: KubeRequest = {}): Promise<KubeResponse> {
    const method = METHOD_OF_VERB[KUBE_CALLS[call].verb];
    const url = new URL(this.server);
    url.pathname = url.pathname.replace(/\/$/, "") + apiPath;
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
    const opts: https.RequestOptions = {
      method,
      headers: { accept: options.accept ?? "application/json", "user-agent": USER_AGENT },
    };
    // Signs the request: the bearer token (re-read from the file as it rotates), or client certificates.
    await this.config.applyToHTTPSOptions(opts);
    opts.agent = this.agentFor(opts);
    opts.signal = options.signal;
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    if (payload) {
      (opts.headers as Record<string, string>)["content-type"] = options.contentType ?? "application/json";
      (opts.headers as Record<string, string>)["content-length"] = String(payload.length);
    }
    const started = performance.now();
    let res: { status: number; text: string };
    try {
      res = await this.exchange(call, url, opts, payload);
    } catch (err) {
      // A read is safe to send again when the reused connection was already gone; a write might
      // have been applied, so it is left to the caller.
      if (method !== "GET" || !isResetOfReusedSocket(err, options.signal)) throw err;
      res = await this.exchange(call, url, opts, payload);
    }
    const latencyMs = performance.now() - started;
    let body: unknown = res.text;
    if (!options.text) {
      try {
        body = res.text ? JSON.parse(res.text) : null;
      } catch {
        body = null;
      }
    }
    if ((res.status >= 200 && res.status < 300) || options.allow?.includes(res.status))
      return { status: res.status, body, latencyMs };
    const status = kubeStatus(body);
    throw new KubeApiError(
      res.status,
      status.reason ?? `HTTP ${res.status}`,
      `${call} (${method} ${url.pathname}) failed with HTTP ${res.status}${status.message ? `: ${status.message}` : ""}`,
      call,
    );
  }

  /**
   * A watch (`?watch=1`) from `resourceVersion`: each event as it arrives (newline-delimited JSON),
   * until the API server ends it after `timeoutSeconds`, `signal` aborts it, or it fails. An ERROR
   * event (410 Gone: the resourceVersion is older than the API server keeps) rejects with its
   * status, as does an answer other than 200. Silence longer than the server's own timeout (with
   * bookmarks asked for, an API server writes at least every minute) is a dead connection.
   */
  async watch<T>(
    call: KubeCallName,
    apiPath: string,
    o: { resourceVersion: string; timeoutSeconds: number; signal?: AbortSignal; onEvent: (e: WatchEvent<T>) => void },
  ): Promise<void> {
    const url = new URL(this.server);
    url.pathname = url.pathname.replace(/\/$/, "") + apiPath;
    const query = {
      watch: "1",
      allowWatchBookmarks: "true",
      resourceVersion: o.resourceVersion,
      timeoutSeconds: o.timeoutSeconds,
    };
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const opts: https.RequestOptions = { method: "GET", headers: { accept: "application/json", "user-agent": USER_AGENT } };
    await this.config.applyToHTTPSOptions(opts);
    opts.agent = this.agentFor(opts);
    opts.signal = o.signal;
    await new Promise<void>((resolve, reject) => {
      const req = https.request(url, opts, (r) => {
        let buffered = "";
        const fail = (err: Error) => {
          req.destroy();
          reject(err);
        };
        r.setEncoding("utf8");
        r.on("data", (chunk: string) => {
          buffered += chunk;
          if (r.statusCode !== 200) return;
          let nl: number;
          while ((nl = buffered.indexOf("\n")) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (!line) continue;
            let event: WatchEvent<T>;
            try {
              event = JSON.parse(line) as WatchEvent<T>;
            } catch {
              return fail(new Error(`${call}: the API server sent a watch event that is not JSON`));
            }
            if (event.type === "ERROR") {
              const st = event.object as { code?: number; reason?: string; message?: string };
              return fail(
                new KubeApiError(
                  st.code ?? 500,
                  st.reason ?? "Error",
                  `${call} (watch) ended: ${st.message ?? "error event"}`,
                  call,
                ),
              );
            }
            o.onEvent(event);
          }
        });
        r.on("end", () => {
          if (r.statusCode === 200) return resolve();
          let body: unknown = null;
          try {
            body = JSON.parse(buffered);
          } catch {
            // not a Status
          }
          const st = kubeStatus(body);
          reject(
            new KubeApiError(
              r.statusCode ?? 0,
              st.reason ?? `HTTP ${r.statusCode}`,
              `${call} (watch ${url.pathname}) failed with HTTP ${r.statusCode}${st.message ? `: ${st.message}` : ""}`,
              call,
            ),
          );
        });
        r.on("error", reject);
      });
      req.setTimeout((o.timeoutSeconds + 60) * 1000, () =>
        req.destroy(new KubeTimeoutError(`the watch ${call} was silent for longer than ${o.timeoutSeconds + 60} s`)),
      );
      req.on("error", reject);
      req.end();
    });
  }

  /**
   * The keep-alive agent for these TLS options, built again when their bytes change: kubelet
   * rewrites ca.crt when the cluster CA rotates, and an exec plugin may return a new client
   * certificate at any time. The library's own per-request agent is dropped (it would cost a
   * handshake per request); a kubeconfig's proxy-url is honoured by tunnelling through it.
   */
  private agentFor(opts: https.RequestOptions): https.Agent {
    const created = opts.agent;
    if (created && created !== this.agent && typeof (created as https.Agent).destroy === "function")
      (created as https.Agent).destroy();
    const material = tlsMaterial(opts);
    if (!this.agent || material !== this.agentMaterial) {
      this.agent?.destroy();
      this.agent = new EnvProxyAgent({
        keepAlive: true,
        maxSockets: 4,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        servername: opts.servername,
        rejectUnauthorized: opts.rejectUnauthorized ?? true,
        proxy: this.proxy,
      });
      this.agentMaterial = material;
    }
    return this.agent;
  }

  private exchange(
    call: KubeCallName,
    url: URL,
    opts: https.RequestOptions,
    payload: Buffer | undefined,
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = https.request(url, opts, (r) => {
        const chunks: Buffer[] = [];
        let size = 0;
        r.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(new Error(`the API answer to ${call} is larger than ${MAX_BODY} bytes`));
          else chunks.push(c);
        });
        r.on("end", () => resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        r.on("error", reject);
      });
      req.setTimeout(this.timeoutMs, () =>
        req.destroy(new KubeTimeoutError(`the API server did not answer ${call} within ${this.timeoutMs} ms`)),
      );
      req.on("error", (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      req.end(payload);
    });
  }

  /** One page of a list: its items, the token of the next page (none: the list is complete) and its resourceVersion. */
  async listPage<T>(
    call: KubeCallName,
    apiPath: string,
    options: { limit?: number; fieldSelector?: string; accept?: string; signal?: AbortSignal; continue?: string } = {},
  ): Promise<{ items: T[]; continue?: string; resourceVersion?: string }> {
    const res = await this.request(call, apiPath, {
      accept: options.accept,
      signal: options.signal,
      query: { limit: options.limit ?? 500, fieldSelector: options.fieldSelector, continue: options.continue },
    });
    const list = res.body as { items?: T[]; metadata?: { continue?: string; resourceVersion?: string } };
    return {
      items: list.items ?? [],
      continue: list.metadata?.continue || undefined,
      resourceVersion: list.metadata?.resourceVersion || undefined,
    };
  }

  /**
   * Every item of a list, page by page (`limit`/`continue`), folding each page into the value
   * `start` makes, so a 150,000-pod list is never held in memory at once. A continue token lives
   * only as long as etcd keeps its revision (about five minutes): when a long list outlives it
   * (410 Expired), the list starts over once from a fresh `start()`, as client-go's pager does.
   */
  async listPages<T, A>(
    call: KubeCallName,
    apiPath: string,
    start: () => A,
    onPage: (into: A, items: T[]) => void,
    options: { limit?: number; fieldSelector?: string; accept?: string; signal?: AbortSignal } = {},
  ): Promise<A> {
    return (await this.listAll(call, apiPath, start, onPage, options)).into;
  }

  /** listPages, with the resourceVersion of the list (where a watch of it starts). */
  async listAll<T, A>(
    call: KubeCallName,
    apiPath: string,
    start: () => A,
    onPage: (into: A, items: T[]) => void,
    options: { limit?: number; fieldSelector?: string; accept?: string; signal?: AbortSignal } = {},
  ): Promise<{ into: A; resourceVersion?: string }> {
    let into = start();
    let token: string | undefined;
    let restarted = false;
    for (;;) {
      let page: { items: T[]; continue?: string; resourceVersion?: string };
      try {
        page = await this.listPage<T>(call, apiPath, { ...options, continue: token });
      } catch (err) {
        if (!(isExpiredContinue(err) && token && !restarted)) throw err;
        restarted = true;
        token = undefined;
        into = start();
        continue;
      }
      onPage(into, page.items);
      token = page.continue;
      if (!token) return { into, resourceVersion: page.resourceVersion };
    }
  }
}
