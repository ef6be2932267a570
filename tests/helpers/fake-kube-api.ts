// A loopback HTTPS server that answers the Kubernetes REST API's paths, verbs, content types and
// JSON shapes for one of the clusters in kube-clusters.ts: enough of the contract for the agent
// (no API server can run on these machines). It checks the bearer token like an API server,
// pages lists with limit/continue, watches nodes from a resourceVersion (410 Gone once expired), serves pods as PartialObjectMetadataList when asked, applies
// merge and strategic-merge patches to the Deployment and nodes, honours a PodDisruptionBudget
// with 429 on evictions, and records every request for the tests to assert. As a hub it serves
// ClusterProfiles (multicluster.x-k8s.io/v1alpha1): server-side apply of the object and of its
// status subresource, lists by label selector, deletes.
import crypto from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import https from "node:https";
import type net from "node:net";
import path from "node:path";
import forge from "node-forge";
import { parse as parseYaml } from "yaml";
import { makeKey } from "./csr";
import type { FakeCluster, FakePod } from "./kube-clusters";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  accept: string;
  contentType: string;
  userAgent: string;
  body: unknown;
}

export type ClusterProfileObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
  };
  spec?: unknown;
  status?: unknown;
};

type Secret = {
  metadata: { name: string; namespace: string; resourceVersion: string; uid: string };
  type: string;
  data: Record<string, string>;
};

function forgeKeys() {
  const k = makeKey();
  return { publicKey: forge.pki.publicKeyFromPem(k.publicKeyPem), privateKey: forge.pki.privateKeyFromPem(k.privateKeyPem) };
}

/** A self-signed CA and a serving certificate for 127.0.0.1 and localhost (PEM). */
export function makeCa() {
  const keys = forgeKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = "01" + crypto.randomBytes(8).toString("hex");
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const subject = [{ name: "commonName", value: "kubernetes" }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const serverKeys = forgeKeys();
  const server = forge.pki.createCertificate();
  server.publicKey = serverKeys.publicKey;
  server.serialNumber = "02" + crypto.randomBytes(8).toString("hex");
  server.validity.notBefore = cert.validity.notBefore;
  server.validity.notAfter = cert.validity.notAfter;
  server.setSubject([{ name: "commonName", value: "kube-apiserver" }]);
  server.setIssuer(subject);
  server.setExtensions([
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [
        { type: 7, ip: "127.0.0.1" },
        { type: 2, value: "localhost" },
      ],
    },
  ]);
  server.sign(keys.privateKey, forge.md.sha256.create());
  return {
    caPem: forge.pki.certificateToPem(cert),
    serverCertPem: forge.pki.certificateToPem(server),
    serverKeyPem: forge.pki.privateKeyToPem(serverKeys.privateKey),
  };
}

const status = (code: number, reason: string, message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason,
  code,
});

/** RFC 7386 merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === "object" && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Strategic merge patch, for the lists the agent patches: containers merge by name. */
function strategicPatch(target: unknown, patch: unknown, key = ""): unknown {
  if (Array.isArray(patch) && Array.isArray(target) && key === "containers") {
    const merged = target.map((c) => ({ ...(c as object) })) as { name: string }[];
    for (const p of patch as { name: string }[]) {
      const i = merged.findIndex((c) => c.name === p.name);
      if (i >= 0) merged[i] = strategicPatch(merged[i], p) as { name: string };
      else merged.push(p);
    }
    return merged;
  }
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === "object" && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = strategicPatch(out[k], v, k);
  }
  return out;
}

/** A PolicyRule of a Role, as the manifest writes it. */
export type RbacRule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; verbs: string[] };

export interface FakeKubeApiOptions {
  /** Bearer tokens accepted (a pod's token rotates: add the new one). */
  tokens: string[];
  namespace?: string;
  /** Page size the server caps lists at, whatever `limit` asks (forces paging in tests). */
  maxPage?: number;
}

export class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  readonly tokens: Set<string>;
  /** The CA of the server's certificate; rotateCa() replaces both. */
  caPem: string;
  url = "";
  port = 0;
  /** /readyz: "ok", an HTTP failure, or a dropped connection. */
  readyz: "ok" | 500 | "drop" = "ok";
  /** /version: "ok", or an HTTP failure. */
  version: "ok" | 500 | 403 = "ok";
  /** Pod name -> evictions to refuse with 429 before allowing (a PodDisruptionBudget). */
  readonly pdbBlocks = new Map<string, number>();
  /**
   * Pod name -> answers its next evictions get, one each, before one is allowed: 500 (a pod under
   * several PodDisruptionBudgets) or 403 NamespaceTerminating (its namespace is being deleted).
   */
  readonly evictionFaults = new Map<string, (500 | "NamespaceTerminating")[]>();
  readonly secrets = new Map<string, Secret>();
  /**
   * Statuses the next requests for Secrets are answered with, one each, before they are served: 503
   * (an API server restarting), 429 (API Priority and Fairness throttling), 403 (RBAC).
   */
  readonly secretFailures: (503 | 429 | 403)[] = [];
  /** The next updates of Secrets that lose to a concurrent writer (409 Conflict), each bumping the resourceVersion. */
  secretConflicts = 0;
  deployment: Record<string, unknown>;
  /** The role bindings that exist, as "<namespace>/<name>" (RoleBindings) or "<name>" (ClusterRoleBindings). */
  readonly roleBindings = new Set<string>();
  readonly clusterRoleBindings = new Set<string>();
  /** Leases (coordination.k8s.io/v1) by "<namespace>/<name>". */
  readonly leases = new Map<
    string,
    {
      metadata: { name: string; namespace: string; resourceVersion: string; uid: string; creationTimestamp: string };
      spec: Record<string, unknown>;
    }
  >();
  /**
   * The rules of the Role bound to the token's user in the agent's namespace (set: requests on
   * objects in that namespace are allowed only by them, as RBAC does; null: everything allowed).
   */
  namespaceRules: RbacRule[] | null = null;
  /** ClusterProfiles by "<namespace>/<name>". */
  readonly clusterProfiles = new Map<string, ClusterProfileObject>();
  /** false: the ClusterProfile CRD is not installed (its paths answer 404). */
  clusterProfileCrd = true;
  /** true: the token's user may not touch ClusterProfiles (RBAC answers 403). */
  clusterProfilesForbidden = false;
  /** Set: every ClusterProfile request is answered with this status and a Status body carrying this message. */
  clusterProfileFailure: { code: number; message: string } | null = null;
  /** The kube-system namespace's metadata.uid: the cluster's identity the agent reports. */
  kubeSystemUid: string = crypto.randomUUID();
  /** true: the token's user may not get the kube-system namespace (an older manifest's RBAC: 403). */
  kubeSystemForbidden = false;
  /** Called with each request as it arrives, before it is answered (a test stops a round mid-list). */
  onRequest: ((r: RecordedRequest) => void) | null = null;
  /** Every answer waits this long (a slow API server). */
  delayMs = 0;
  /** The next this-many list requests carrying a continue token answer 410 Expired (etcd compacted it). */
  expireContinue = 0;
  /** The next this-many requests on a connection that already served one are met with a reset. */
  resetReusedSockets = 0;
  /** Node changes since the API server started, for watches (each with the resourceVersion it made). */
  private readonly nodeEvents: { rv: number; type: "ADDED" | "MODIFIED" | "DELETED"; object: unknown }[] = [];
  /** Watches of nodes from a resourceVersion below this answer 410 Gone (etcd compacted it). */
  private nodeHistoryFrom = 0;
  private readonly nodeWatchers = new Set<http.ServerResponse>();
  private readonly usedSockets = new WeakSet<net.Socket>();
  /** The pods the last first page of a pod list saw, per field selector. */
  private readonly podSnapshots = new Map<string, FakePod[]>();
  private server: https.Server;
  private rv = 100;
  private lastCreatedAt = 0;
  private readonly namespace: string;

  constructor(
    readonly cluster: FakeCluster,
    private readonly options: FakeKubeApiOptions,
  ) {
    const pki = makeCa();
    this.caPem = pki.caPem;
    this.tokens = new Set(options.tokens);
    this.namespace = options.namespace ?? "fleet-system";
    this.deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "fleet-agent", namespace: this.namespace, resourceVersion: "1", generation: 1 },
      spec: {
        replicas: 1,
        selector: { matchLabels: { "app.kubernetes.io/name": "fleet-agent" } },
        template: {
          metadata: { labels: { "app.kubernetes.io/name": "fleet-agent" } },
          spec: { serviceAccountName: "fleet-agent", containers: [{ name: "agent", image: "fleet-registry/agent:1.4.0" }] },
        },
      },
    };
    this.server = https.createServer(
      { key: pki.serverKeyPem, cert: pki.serverCertPem },
      (req, res) => void this.handle(req, res),
    );
  }

  /** A new cluster CA and serving certificate (CA rotation); open connections keep the old ones. */
  rotateCa(): string {
    const pki = makeCa();
    this.caPem = pki.caPem;
    this.server.setSecureContext({ key: pki.serverKeyPem, cert: pki.serverCertPem });
    return pki.caPem;
  }

  /** Closes every open connection (as an API server restart or a load balancer would). */
  dropConnections() {
    this.server.closeAllConnections();
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    this.url = `https://127.0.0.1:${this.port}`;
    return this;
  }

  /** Open watches of nodes. */
  get nodeWatches(): number {
    return this.nodeWatchers.size;
  }

  /** A node changed (added, patched, deleted): a new resourceVersion, sent to every watch of nodes. */
  private nodeChanged(type: "ADDED" | "MODIFIED" | "DELETED", node: FakeCluster["nodes"][number]) {
    node.metadata.resourceVersion = String(++this.rv);
    const event = { rv: this.rv, type, object: { kind: "Node", apiVersion: "v1", ...node } };
    this.nodeEvents.push(event);
    const line = JSON.stringify({ type, object: event.object }) + "\n";
    for (const res of this.nodeWatchers) res.write(line);
  }

  addNode(node: FakeCluster["nodes"][number]) {
    this.cluster.nodes.push(node);
    this.nodeChanged("ADDED", node);
  }

  updateNode(name: string, change: (node: FakeCluster["nodes"][number]) => void) {
    const node = this.cluster.nodes.find((n) => n.metadata.name === name);
    if (!node) throw new Error(`no node ${name}`);
    change(node);
    this.nodeChanged("MODIFIED", node);
  }

  removeNode(name: string) {
    const i = this.cluster.nodes.findIndex((n) => n.metadata.name === name);
    const [node] = this.cluster.nodes.splice(i, 1);
    if (node) this.nodeChanged("DELETED", node);
  }

  /** etcd compacted: open watches of nodes end with 410 Gone, and none can start from before now. */
  expireNodeWatches() {
    this.nodeHistoryFrom = this.rv + 1;
    const gone = JSON.stringify({ type: "ERROR", object: status(410, "Expired", "too old resource version") }) + "\n";
    for (const res of this.nodeWatchers) res.end(gone);
    this.nodeWatchers.clear();
  }

  private watchNodes(req: http.IncomingMessage, res: http.ServerResponse, query: Record<string, string>) {
    const from = Number(query.resourceVersion ?? "0");
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    if (from < this.nodeHistoryFrom) {
      return res.end(
        JSON.stringify({ type: "ERROR", object: status(410, "Expired", `too old resource version: ${from}`) }) + "\n",
      );
    }
    for (const e of this.nodeEvents) if (e.rv > from) res.write(JSON.stringify({ type: e.type, object: e.object }) + "\n");
    this.nodeWatchers.add(res);
    const timer = setTimeout(() => res.end(), Number(query.timeoutSeconds ?? 1800) * 1000);
    timer.unref();
    req.socket.on("close", () => {
      clearTimeout(timer);
      this.nodeWatchers.delete(res);
    });
    res.on("finish", () => {
      clearTimeout(timer);
      this.nodeWatchers.delete(res);
    });
  }

  async stop() {
    for (const res of this.nodeWatchers) res.end();
    this.nodeWatchers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  addSecret(name: string, data: Record<string, string> = {}, namespace = this.namespace) {
    this.secrets.set(`${namespace}/${name}`, {
      metadata: { name, namespace, resourceVersion: String(++this.rv), uid: crypto.randomUUID() },
      type: "Opaque",
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
    });
  }

  /** The bindings the manifest creates for the agent's ServiceAccount. */
  addAgentBindings(nodeActions = false) {
    this.roleBindings.add(`${this.namespace}/fleet-agent`).add("kube-public/fleet-agent-cluster-info");
    this.clusterRoleBindings.add("fleet-agent");
    if (nodeActions) this.clusterRoleBindings.add("fleet-agent-node-actions");
  }

  /** A Lease as an older manifest created it: no holder yet. */
  addLease(name: string, namespace = this.namespace, spec: Record<string, unknown> = {}) {
    this.leases.set(`${namespace}/${name}`, {
      metadata: {
        name,
        namespace,
        resourceVersion: String(++this.rv),
        uid: crypto.randomUUID(),
        creationTimestamp: this.creationTimestamp(),
      },
      spec,
    });
  }

  /** The API server's clock at second precision: an object created after another is never older. */
  private creationTimestamp(): string {
    this.lastCreatedAt = Math.max(Math.floor(Date.now() / 1000) * 1000, this.lastCreatedAt + 1000);
    return new Date(this.lastCreatedAt).toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  /** 403 as RBAC answers it, when namespaceRules do not allow this request on an object in the agent's namespace. */
  private forbidden(method: string, p: string): string | null {
    if (!this.namespaceRules) return null;
    const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(\/[^/]+)?$/.exec(p);
    if (!m || m[2] !== this.namespace) return null;
    const [, group = "", , plural, name, sub] = m;
    const resource = `${plural}${sub ?? ""}`;
    const verb =
      method === "GET"
        ? name
          ? "get"
          : "list"
        : ({ POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" }[method] ?? "");
    const allowed = this.namespaceRules.some(
      (r) =>
        r.verbs.includes(verb) &&
        (r.apiGroups ?? []).includes(group) &&
        (r.resources ?? []).includes(resource) &&
        (!r.resourceNames?.length || (!!name && r.resourceNames.includes(name))),
    );
    if (allowed) return null;
    const what = group ? `${resource}.${group}` : resource;
    return `${what}${name ? ` "${name}"` : ""} is forbidden: User "system:serviceaccount:${this.namespace}:fleet-agent" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${this.namespace}"`;
  }

  secretText(name: string, key: string, namespace = this.namespace): string | undefined {
    const v = this.secrets.get(`${namespace}/${name}`)?.data[key];
    return v === undefined ? undefined : Buffer.from(v, "base64").toString("utf8");
  }

  /** Writes a pod's service-account files (token, ca.crt, namespace) under `root` as kubelet mounts them. */
  layOutServiceAccount(root: string, token: string): string {
    const dir = path.join(root, "var/run/secrets/kubernetes.io/serviceaccount");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "token"), token);
    fs.writeFileSync(path.join(dir, "ca.crt"), this.caPem);
    fs.writeFileSync(path.join(dir, "namespace"), this.namespace);
    return dir;
  }

  /** A kubeconfig for this API with the given token, as `kubectl config view --raw` writes one. */
  kubeconfig(token: string): string {
    return [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      `- name: ${this.cluster.name}`,
      "  cluster:",
      `    server: ${this.url}`,
      `    certificate-authority-data: ${Buffer.from(this.caPem).toString("base64")}`,
      "users:",
      "- name: admin",
      "  user:",
      `    token: ${token}`,
      "contexts:",
      `- name: ${this.cluster.name}`,
      "  context:",
      `    cluster: ${this.cluster.name}`,
      "    user: admin",
      `current-context: ${this.cluster.name}`,
      "",
    ].join("\n");
  }

  /** Requests other than the periodic reads: writes and named objects. */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== "GET");
  }

  private send(res: http.ServerResponse, code: number, body: unknown, type = "application/json") {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(code, { "content-type": type, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  private page<T>(items: T[], query: Record<string, string>, kind: string, apiVersion = "v1") {
    const offset = query.continue ? Number(Buffer.from(query.continue, "base64").toString("utf8")) : 0;
    const limit = Math.min(Number(query.limit) || items.length || 1, this.options.maxPage ?? Infinity);
    const slice = items.slice(offset, offset + limit);
    const next = offset + limit < items.length ? Buffer.from(String(offset + limit)).toString("base64") : undefined;
    return {
      kind,
      apiVersion,
      metadata: {
        resourceVersion: String(this.rv),
        ...(next ? { continue: next, remainingItemCount: items.length - offset - limit } : {}),
      },
      items: slice,
    };
  }

  private podsMatching(fieldSelector: string | undefined): FakePod[] {
    let pods = this.cluster.pods;
    for (const term of (fieldSelector ?? "").split(",").filter(Boolean)) {
      const neq = /^([\w.]+)!=(.*)$/.exec(term);
      const eq = /^([\w.]+)==?(.*)$/.exec(term);
      const get = (p: FakePod, field: string) =>
        field === "status.phase" ? p.status.phase : field === "spec.nodeName" ? p.spec.nodeName : undefined;
      if (neq) pods = pods.filter((p) => get(p, neq[1]!) !== neq[2]);
      else if (eq) pods = pods.filter((p) => get(p, eq[1]!) === eq[2]);
    }
    return pods;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "https://localhost");
    const query = Object.fromEntries(url.searchParams);
    const contentType = String(req.headers["content-type"] ?? "");
    let body: unknown = undefined;
    try {
      // An apply patch is YAML (of which JSON is a part), as the API server reads it.
      body = text ? (contentType.includes("yaml") ? parseYaml(text) : JSON.parse(text)) : undefined;
    } catch {
      return this.send(res, 400, status(400, "BadRequest", "the body is not JSON"));
    }
    const method = req.method ?? "GET";
    const p = url.pathname;
    if (this.usedSockets.has(req.socket) && this.resetReusedSockets > 0) {
      this.resetReusedSockets -= 1;
      return req.socket.destroy();
    }
    this.usedSockets.add(req.socket);
    this.requests.push({
      method,
      path: p,
      query,
      accept: String(req.headers.accept ?? ""),
      contentType,
      userAgent: String(req.headers["user-agent"] ?? ""),
      body,
    });
    this.onRequest?.(this.requests.at(-1)!);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (query.continue && this.expireContinue > 0) {
      this.expireContinue -= 1;
      return this.send(
        res,
        410,
        status(
          410,
          "Expired",
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
        ),
      );
    }

    const auth = String(req.headers.authorization ?? "");
    if (!auth.startsWith("Bearer ") || !this.tokens.has(auth.slice(7))) {
      return this.send(res, 401, status(401, "Unauthorized", "Unauthorized"));
    }
    const denied = this.forbidden(method, p);
    if (denied) return this.send(res, 403, status(403, "Forbidden", denied));
    const metadataOnly = String(req.headers.accept ?? "").includes("as=PartialObjectMetadataList");
    const c = this.cluster;
    let m: RegExpExecArray | null;

    if (method === "GET" && p === "/version") {
      if (this.version !== "ok") return this.send(res, this.version, { kind: "Status", status: "Failure", code: this.version });
      const [major, minor] = c.gitVersion.replace(/^v/, "").split(".");
      return this.send(res, 200, { major, minor, gitVersion: c.gitVersion, platform: "linux/amd64" });
    }
    if (method === "GET" && p === "/readyz") {
      if (this.readyz === "drop") return req.socket.destroy();
      if (this.readyz === 500) return this.send(res, 500, "[-]etcd failed: reason withheld\nreadyz check failed", "text/plain");
      return this.send(res, 200, "ok", "text/plain");
    }
    if (method === "GET" && p === "/api/v1/nodes" && (query.watch === "1" || query.watch === "true"))
      return this.watchNodes(req, res, query);
    if (method === "GET" && p === "/api/v1/nodes") return this.send(res, 200, this.page(c.nodes, query, "NodeList"));
    if (method === "PATCH" && (m = /^\/api\/v1\/nodes\/([^/]+)$/.exec(p))) {
      const node = c.nodes.find((n) => n.metadata.name === m![1]);
      if (!node) return this.send(res, 404, status(404, "NotFound", `nodes "${m[1]}" not found`));
      if (contentType !== "application/strategic-merge-patch+json" && contentType !== "application/merge-patch+json") {
        return this.send(
          res,
          415,
          status(
            415,
            "UnsupportedMediaType",
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
          ),
        );
      }
      Object.assign(node, strategicPatch(node, body));
      this.nodeChanged("MODIFIED", node);
      return this.send(res, 200, node);
    }
    if (method === "GET" && p === "/api/v1/namespaces") {
      const items = c.namespaces.map((name) => ({ metadata: { name } }));
      return this.send(
        res,
        200,
        this.page(
          items,
          query,
          metadataOnly ? "PartialObjectMetadataList" : "NamespaceList",
          metadataOnly ? "meta.k8s.io/v1" : "v1",
        ),
      );
    }
    if (method === "GET" && p === "/api/v1/namespaces/kube-system") {
      if (this.kubeSystemForbidden)
        return this.send(
          res,
          403,
          status(
            403,
            "Forbidden",
            `namespaces "kube-system" is forbidden: User cannot get resource "namespaces" in API group ""`,
          ),
        );
      return this.send(res, 200, {
        kind: "Namespace",
        apiVersion: "v1",
        metadata: { name: "kube-system", uid: this.kubeSystemUid, resourceVersion: "7" },
        spec: { finalizers: ["kubernetes"] },
        status: { phase: "Active" },
      });
    }
    if (method === "GET" && p === "/api/v1/pods") {
      // A continued list is served from the snapshot its first page saw, as the API server serves
      // it from that page's revision (and a 150,000-pod list is filtered once, not per page).
      const key = query.fieldSelector ?? "";
      const snapshot = query.continue ? this.podSnapshots.get(key) : undefined;
      const pods = snapshot ?? this.podsMatching(query.fieldSelector);
      this.podSnapshots.set(key, pods);
      if (metadataOnly) {
        // Paged first, then shaped: a 150,000-pod list is shaped one page at a time, as served.
        const list = this.page(pods, query, "PartialObjectMetadataList", "meta.k8s.io/v1");
        const items = list.items.map((pod) => ({
          kind: "PartialObjectMetadata",
          apiVersion: "meta.k8s.io/v1",
          metadata: pod.metadata,
        }));
        return this.send(res, 200, { ...list, items });
      }
      return this.send(res, 200, this.page(pods, query, "PodList"));
    }
    if (method === "POST" && (m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/eviction$/.exec(p))) {
      const [, ns, name] = m;
      const i = c.pods.findIndex((pod) => pod.metadata.namespace === ns && pod.metadata.name === name);
      if (i < 0) return this.send(res, 404, status(404, "NotFound", `pods "${name}" not found`));
      const blocked = this.pdbBlocks.get(name!) ?? 0;
      if (blocked > 0) {
        this.pdbBlocks.set(name!, blocked - 1);
        return this.send(
          res,
          429,
          status(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget."),
        );
      }
      const fault = this.evictionFaults.get(name!)?.shift();
      if (fault === 500) {
        return this.send(
          res,
          500,
          status(
            500,
            "InternalError",
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
          ),
        );
      }
      if (fault === "NamespaceTerminating") {
        return this.send(res, 403, {
          ...status(
            403,
            "Forbidden",
            `pods "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
          ),
          details: {
            name,
            kind: "pods",
            causes: [
              { reason: "NamespaceTerminating", message: `namespace ${ns} is being terminated`, field: "metadata.namespace" },
            ],
          },
        });
      }
      c.pods.splice(i, 1);
      return this.send(res, 201, { kind: "Status", apiVersion: "v1", status: "Success", code: 201 });
    }
    if (method === "GET" && p === "/apis/apps/v1/daemonsets") {
      return this.send(res, 200, this.page(c.daemonSets, query, "DaemonSetList", "apps/v1"));
    }
    if (method === "GET" && p === "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io") {
      if (!c.metrics)
        return this.send(
          res,
          404,
          status(404, "NotFound", 'apiservices.apiregistration.k8s.io "v1beta1.metrics.k8s.io" not found'),
        );
      return this.send(res, 200, {
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name: "v1beta1.metrics.k8s.io" },
        spec: { group: "metrics.k8s.io", version: "v1beta1", service: { name: "metrics-server", namespace: "kube-system" } },
        status: { conditions: [{ type: "Available", status: "True", reason: "Passed" }] },
      });
    }
    if (method === "GET" && p === "/api/v1/namespaces/kube-public/configmaps/cluster-info") {
      if (!c.clusterInfoServer) return this.send(res, 404, status(404, "NotFound", 'configmaps "cluster-info" not found'));
      const kubeconfig = `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${Buffer.from(this.caPem).toString("base64")}\n    server: ${c.clusterInfoServer}\n  name: ""\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n`;
      return this.send(res, 200, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cluster-info", namespace: "kube-public" },
        data: { kubeconfig },
      });
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(p))) {
      const key = `${m[1]}/${m[2]}`;
      const failure = this.secretFailures.shift();
      if (failure) {
        const [reason, message]: [string, string] = {
          503: ["ServiceUnavailable", "the server is currently unable to handle the request"],
          429: ["TooManyRequests", "the server has received too many requests and has asked us to try again later"],
          403: ["Forbidden", `secrets "${m[2]}" is forbidden: User cannot get resource "secrets" in the namespace "${m[1]}"`],
        }[failure] as [string, string];
        return this.send(res, failure, status(failure, reason, message));
      }
      const secret = this.secrets.get(key);
      if (!secret) return this.send(res, 404, status(404, "NotFound", `secrets "${m[2]}" not found`));
      if (method === "GET") return this.send(res, 200, { apiVersion: "v1", kind: "Secret", ...secret });
      if (method === "DELETE") {
        this.secrets.delete(key);
        return this.send(res, 200, {
          kind: "Status",
          apiVersion: "v1",
          status: "Success",
          details: { name: m[2], kind: "secrets" },
        });
      }
      if (method === "PUT") {
        const next = body as Secret;
        if (this.secretConflicts > 0) {
          this.secretConflicts -= 1;
          secret.metadata.resourceVersion = String(++this.rv);
        }
        if (next.metadata?.resourceVersion && next.metadata.resourceVersion !== secret.metadata.resourceVersion) {
          return this.send(
            res,
            409,
            status(409, "Conflict", `Operation cannot be fulfilled on secrets "${m[2]}": the object has been modified`),
          );
        }
        const updated: Secret = {
          metadata: { ...secret.metadata, resourceVersion: String(++this.rv) },
          type: next.type ?? "Opaque",
          data: next.data ?? {},
        };
        this.secrets.set(key, updated);
        return this.send(res, 200, { apiVersion: "v1", kind: "Secret", ...updated });
      }
    }
    if (
      method === "DELETE" &&
      (m = /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/(?:namespaces\/([^/]+)\/rolebindings|clusterrolebindings)\/([^/]+)$/.exec(
        p,
      ))
    ) {
      const [set, key, kind] = m[1]
        ? [this.roleBindings, `${m[1]}/${m[2]}`, "rolebindings"]
        : [this.clusterRoleBindings, m[2]!, "clusterrolebindings"];
      if (!set.delete(key))
        return this.send(res, 404, status(404, "NotFound", `${kind}.rbac.authorization.k8s.io "${m[2]}" not found`));
      return this.send(res, 200, { kind: "Status", apiVersion: "v1", status: "Success", details: { name: m[2], kind } });
    }
    if (method === "POST" && (m = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases$/.exec(p))) {
      const created = body as { metadata?: { name?: string }; spec?: Record<string, unknown> };
      const name = created.metadata?.name;
      if (!name)
        return this.send(res, 422, status(422, "Invalid", "Lease.coordination.k8s.io is invalid: metadata.name: Required value"));
      if (this.leases.has(`${m[1]}/${name}`))
        return this.send(res, 409, status(409, "AlreadyExists", `leases.coordination.k8s.io "${name}" already exists`));
      this.addLease(name, m[1], created.spec ?? {});
      return this.send(res, 201, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...this.leases.get(`${m[1]}/${name}`) });
    }
    if ((m = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases\/([^/]+)$/.exec(p))) {
      const key = `${m[1]}/${m[2]}`;
      const lease = this.leases.get(key);
      if (!lease) return this.send(res, 404, status(404, "NotFound", `leases.coordination.k8s.io "${m[2]}" not found`));
      const object = () => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...lease });
      if (method === "GET") return this.send(res, 200, object());
      if (method === "PUT") {
        const next = body as { metadata?: { resourceVersion?: string }; spec?: Record<string, unknown> };
        if (next.metadata?.resourceVersion !== lease.metadata.resourceVersion) {
          return this.send(
            res,
            409,
            status(
              409,
              "Conflict",
              `Operation cannot be fulfilled on leases.coordination.k8s.io "${m[2]}": the object has been modified`,
            ),
          );
        }
        lease.spec = next.spec ?? {};
        lease.metadata.resourceVersion = String(++this.rv);
        return this.send(res, 200, object());
      }
    }
    if ((m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)$/.exec(p))) {
      const meta = this.deployment.metadata as { name: string; namespace: string };
      if (m[1] !== meta.namespace || m[2] !== meta.name)
        return this.send(res, 404, status(404, "NotFound", `deployments.apps "${m[2]}" not found`));
      if (method === "GET") return this.send(res, 200, this.deployment);
      if (method === "PATCH") {
        if (contentType === "application/merge-patch+json")
          this.deployment = mergePatch(this.deployment, body) as Record<string, unknown>;
        else if (contentType === "application/strategic-merge-patch+json")
          this.deployment = strategicPatch(this.deployment, body) as Record<string, unknown>;
        else if (contentType === "application/apply-patch+yaml") {
          // Server-side apply, as far as the agent uses it: the applied fields win (forced),
          // containers merge by name; ownership of fields is not modelled.
          if (!query.fieldManager)
            return this.send(res, 400, status(400, "BadRequest", "PATCH, fieldManager is required for apply patch"));
          const applied = body as { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } };
          if (applied?.apiVersion !== "apps/v1" || applied.kind !== "Deployment" || applied.metadata?.name !== meta.name)
            return this.send(
              res,
              400,
              status(400, "BadRequest", "the applied object's apiVersion, kind or name does not match the URL"),
            );
          this.deployment = strategicPatch(this.deployment, body) as Record<string, unknown>;
        } else return this.send(res, 415, status(415, "UnsupportedMediaType", "unsupported patch type"));
        return this.send(res, 200, this.deployment);
      }
    }
    if (
      (m = /^\/apis\/multicluster\.x-k8s\.io\/v1alpha1\/namespaces\/([^/]+)\/clusterprofiles(?:\/([^/]+))?(\/status)?$/.exec(p))
    ) {
      const failure = this.clusterProfileFailure;
      if (failure) return this.send(res, failure.code, status(failure.code, "InternalError", failure.message));
      if (this.clusterProfilesForbidden)
        return this.send(
          res,
          403,
          status(
            403,
            "Forbidden",
            `clusterprofiles.multicluster.x-k8s.io is forbidden: User cannot ${method.toLowerCase()} in namespace "${m[1]}"`,
          ),
        );
      if (this.clusterProfileCrd) return this.clusterProfile(res, method, m[1]!, m[2], !!m[3], query, contentType, body);
    }
    return this.send(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
  }

  private clusterProfile(
    res: http.ServerResponse,
    method: string,
    namespace: string,
    name: string | undefined,
    statusSubresource: boolean,
    query: Record<string, string>,
    contentType: string,
    body: unknown,
  ) {
    const key = `${namespace}/${name}`;
    const existing = this.clusterProfiles.get(key);
    const notFound = () =>
      this.send(res, 404, status(404, "NotFound", `clusterprofiles.multicluster.x-k8s.io "${name}" not found`));
    if (method === "GET" && !name) {
      const [labelKey, labelValue] = (query.labelSelector ?? "").split("=");
      const items = [...this.clusterProfiles.values()].filter(
        (o) => o.metadata.namespace === namespace && (!labelKey || o.metadata.labels?.[labelKey] === labelValue),
      );
      return this.send(res, 200, this.page(items, query, "ClusterProfileList", "multicluster.x-k8s.io/v1alpha1"));
    }
    if (!name) return this.send(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method"));
    if (method === "GET") return existing ? this.send(res, 200, existing) : notFound();
    if (method === "DELETE") {
      if (!existing) return notFound();
      this.clusterProfiles.delete(key);
      return this.send(res, 200, {
        kind: "Status",
        apiVersion: "v1",
        status: "Success",
        details: { name, kind: "clusterprofiles" },
      });
    }
    if (method !== "PATCH") return this.send(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method"));
    if (contentType !== "application/apply-patch+yaml")
      return this.send(
        res,
        415,
        status(415, "UnsupportedMediaType", `this fake applies only application/apply-patch+yaml, not ${contentType}`),
      );
    if (!query.fieldManager)
      return this.send(res, 400, status(400, "BadRequest", "PATCH, fieldManager is required for apply patch"));
    const applied = body as ClusterProfileObject;
    if (
      applied?.apiVersion !== "multicluster.x-k8s.io/v1alpha1" ||
      applied.kind !== "ClusterProfile" ||
      applied.metadata?.name !== name
    )
      return this.send(
        res,
        400,
        status(400, "BadRequest", "the applied object's apiVersion, kind or name does not match the URL"),
      );
    if (statusSubresource) {
      if (!existing) return notFound();
      existing.status = applied.status;
      existing.metadata.resourceVersion = String(++this.rv);
      return this.send(res, 200, existing);
    }
    // The main resource ignores status, as a CRD with the status subresource does.
    const specChanged = JSON.stringify(existing?.spec) !== JSON.stringify(applied.spec);
    const next: ClusterProfileObject = {
      apiVersion: applied.apiVersion,
      kind: applied.kind,
      metadata: {
        name,
        namespace,
        labels: applied.metadata.labels ?? {},
        annotations: applied.metadata.annotations ?? {},
        uid: existing?.metadata.uid ?? crypto.randomUUID(),
        generation: (existing?.metadata.generation ?? 0) + (specChanged ? 1 : 0),
        resourceVersion: String(++this.rv),
      },
      spec: applied.spec,
      ...(existing?.status ? { status: existing.status } : {}),
    };
    this.clusterProfiles.set(key, next);
    return this.send(res, existing ? 200 : 201, next);
  }

  /** The ClusterProfile requests (writes and lists), oldest first. */
  clusterProfileRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path.startsWith("/apis/multicluster.x-k8s.io/"));
  }

  /** Sets the image of the Deployment's agent container (as the manifest installed it). */
  setAgentImage(image: string) {
    const spec = this.deployment.spec as { template: { spec: { containers: { name: string; image: string }[] } } };
    spec.template.spec.containers.find((x) => x.name === "agent")!.image = image;
  }

  /** The image of the Deployment's agent container and its replicas. */
  deploymentState(): { image: string; replicas: number } {
    const spec = this.deployment.spec as {
      replicas: number;
      template: { spec: { containers: { name: string; image: string }[] } };
    };
    return { image: spec.template.spec.containers.find((x) => x.name === "agent")!.image, replicas: spec.replicas };
  }
}
