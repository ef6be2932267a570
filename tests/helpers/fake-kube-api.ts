// A loopback HTTPS server that answers the Kubernetes REST API's paths, verbs, content types and
// JSON shapes for one of the clusters in kube-clusters.ts: enough of the contract for the agent
// (no API server can run on these machines). It checks the bearer token like an API server,
// pages lists with limit/continue, watches nodes from a resourceVersion (410 Gone once expired), serves pods as PartialObjectMetadataList when asked, applies
// merge and strategic-merge patches to the Deployment and nodes, honours a PodDisruptionBudget
// with 429 on evictions, and records every request for the tests to assert. As a hub it serves
// ClusterProfiles (multicluster.x-k8s.io/v1alpha1): server-side apply of the object and of its
// status subresource, lists by label selector, deletes. As a Cluster API management cluster it
// serves cluster.x-k8s.io Clusters (fake-capi-cluster.ts: discovery, lists, watches with bookmarks
// and 410, server-side apply of labels and annotations), labelled Namespaces and the
// <cluster>-kubeconfig Secrets; as a workload cluster it takes server-side apply of the agent's
// manifest (applyObject).
import crypto from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import https from "node:https";
import type net from "node:net";
import path from "node:path";
import forge from "node-forge";
import { parse as parseYaml } from "yaml";
import {
  CAPI_GROUP,
  CAPI_VERSIONS,
  applyMapField,
  capiConditions,
  dropChangedOwnership,
  renderCapiCluster,
  selectorMatcher,
  type CapiClusterInput,
  type CapiClusterState,
  type CapiVersion,
} from "./fake-capi-cluster";
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
  metadata: { name: string; namespace: string; resourceVersion: string; uid: string; labels?: Record<string, string> };
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

/**
 * Now at second precision, as timestamps are written (for Clusters and applied objects, which
 * need no order among themselves: creationTimestamp() moves a shared clock on by a second each).
 */
const wallClock = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

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
  /**
   * Bearer tokens of a cluster admin (what a kubeconfig the server is given holds): accepted, and
   * not held to namespaceRules, which are the agent's Role.
   */
  adminTokens?: string[];
  /** The cluster.x-k8s.io versions served (default both; older CAPI serves only v1beta1; none: CAPI not installed). */
  capiVersions?: CapiVersion[];
}

/** One object server-side applied (or applied through applyObject), in order. */
export type AppliedObject = {
  fieldManager: string;
  force: boolean;
  object: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  } & Record<string, unknown>;
};

/** The kinds server-side apply is served for (the agent's manifest), by group, version and plural. */
const APPLY_KINDS: { group: string; version: string; plural: string; kind: string; namespaced: boolean }[] = [
  { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true },
  { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
  { group: "", version: "v1", plural: "services", kind: "Service", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", kind: "Role", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "rolebindings", kind: "RoleBinding", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterroles", kind: "ClusterRole", namespaced: false },
  {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true },
];

/** The kind and object an object path names, when it is one of APPLY_KINDS (other paths keep their own handlers). */
function applyTarget(p: string) {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)\/([^/]+)$/.exec(p);
  if (!m) return null;
  const [, coreVersion, group = "", groupVersion, namespace, plural, name] = m;
  const kind = APPLY_KINDS.find(
    (k) =>
      k.group === group && k.version === (coreVersion ?? groupVersion) && k.plural === plural && k.namespaced === !!namespace,
  );
  return kind ? { kind, namespace, name: name! } : null;
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
  /** Tokens of a cluster admin (options.adminTokens): not held to namespaceRules. */
  readonly adminTokens: Set<string>;
  /** The cluster.x-k8s.io versions served (options.capiVersions). */
  readonly capiVersions: readonly CapiVersion[];
  /** Resource plurals ("namespaces", "deployments") whose server-side apply RBAC refuses (403). */
  readonly applyForbidden = new Set<string>();
  /** CAPI Clusters by "<namespace>/<name>", in the neutral form (rendered per version when read). */
  private readonly capiClusters = new Map<string, CapiClusterState>();
  /** Cluster changes, for watches: each with the resourceVersion it made and the labels before it. */
  private readonly capiEvents: {
    rv: number;
    type: "ADDED" | "MODIFIED" | "DELETED";
    object: CapiClusterState;
    labelsBefore: Record<string, string> | null;
  }[] = [];
  /** Watches of Clusters from a resourceVersion below this answer 410 Gone. */
  private capiHistoryFrom = 0;
  private readonly capiWatchers = new Map<
    http.ServerResponse,
    { version: CapiVersion; namespace: string | undefined; matches: (l: Record<string, string>) => boolean; bookmarks: boolean }
  >();
  /** The metadata of the namespaces cluster.namespaces names, made when first read. */
  private readonly namespaceMetas = new Map<string, { uid: string; resourceVersion: string; labels: Record<string, string> }>();
  /** What server-side apply (or applyObject) applied, in order. */
  private readonly applied: AppliedObject[] = [];
  /** The applied objects of kinds the fake keeps no model of (ServiceAccounts, ConfigMaps, RBAC), by kind and key. */
  private readonly appliedStore = new Map<string, Record<string, unknown>>();
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
    this.adminTokens = new Set(options.adminTokens ?? []);
    this.capiVersions = options.capiVersions ?? ["v1beta1", "v1beta2"];
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

  // --- Cluster API: the management cluster's Clusters (shapes in fake-capi-cluster.ts) ---

  /** Open watches of CAPI Clusters. */
  get capiWatches(): number {
    return this.capiWatchers.size;
  }

  /** Adds a Cluster (ADDED to watches); returns a copy of what is stored. */
  addCapiCluster(input: CapiClusterInput): CapiClusterState {
    const key = `${input.namespace}/${input.name}`;
    if (this.capiClusters.has(key)) throw new Error(`Cluster ${key} exists`);
    const created = input.creationTimestamp ?? wallClock();
    const phase = input.phase ?? "Pending";
    const state: CapiClusterState = {
      metadata: {
        name: input.name,
        namespace: input.namespace,
        uid: crypto.randomUUID(),
        resourceVersion: "",
        generation: 1,
        creationTimestamp: created,
        finalizers: ["cluster.cluster.x-k8s.io"],
        labels: { ...input.labels },
        annotations: { ...input.annotations },
      },
      phase,
      conditions: capiConditions(phase, input.conditions, created),
      infrastructure: {
        apiVersion: input.infrastructureApiVersion ?? "infrastructure.cluster.x-k8s.io/v1beta1",
        kind: input.infrastructureKind ?? "DockerCluster",
      },
      ...(input.kubernetesVersion ? { kubernetesVersion: input.kubernetesVersion } : {}),
      ...(input.topologyClass ? { topologyClass: input.topologyClass } : {}),
      owners: {},
    };
    this.capiClusters.set(key, state);
    this.capiChanged("ADDED", state, null);
    return structuredClone(state);
  }

  /**
   * Changes a Cluster as its controllers or a person would (MODIFIED to watches): a condition whose
   * status changed gets a new lastTransitionTime; labels and annotations it changes leave the
   * field managers that applied them.
   */
  updateCapiCluster(namespace: string, name: string, mutate: (c: CapiClusterState) => void): CapiClusterState {
    const state = this.capiClusterState(namespace, name);
    const before = structuredClone(state);
    mutate(state);
    const now = wallClock();
    for (const [type, c] of Object.entries(state.conditions)) {
      const old = before.conditions[type as keyof typeof before.conditions];
      if (old.status !== c.status && c.lastTransitionTime === old.lastTransitionTime) c.lastTransitionTime = now;
    }
    dropChangedOwnership(state);
    this.capiChanged("MODIFIED", state, before.metadata.labels);
    return structuredClone(state);
  }

  /** `kubectl delete cluster`: deletionTimestamp set and phase Deleting; the finalizer keeps the object until removeCapiCluster. */
  setCapiClusterDeleting(namespace: string, name: string): CapiClusterState {
    return this.updateCapiCluster(namespace, name, (c) => {
      c.metadata.deletionTimestamp ??= wallClock();
      c.metadata.generation += 1;
      c.phase = "Deleting";
    });
  }

  /** The finalizer is gone: the Cluster disappears (DELETED to watches). */
  removeCapiCluster(namespace: string, name: string) {
    const state = this.capiClusterState(namespace, name);
    this.capiClusters.delete(`${namespace}/${name}`);
    this.capiChanged("DELETED", state, null);
  }

  /** A copy of the stored Cluster (annotations included), or undefined. */
  capiCluster(namespace: string, name: string): CapiClusterState | undefined {
    const state = this.capiClusters.get(`${namespace}/${name}`);
    return state && structuredClone(state);
  }

  /** A BOOKMARK at the current resourceVersion to every watch of Clusters that allowed bookmarks. */
  sendCapiBookmark() {
    for (const [res, w] of this.capiWatchers) {
      if (!w.bookmarks) continue;
      const object = {
        kind: "Cluster",
        apiVersion: `${CAPI_GROUP}/${w.version}`,
        metadata: { resourceVersion: String(this.rv) },
      };
      res.write(JSON.stringify({ type: "BOOKMARK", object }) + "\n");
    }
  }

  /** etcd compacted at the current revision: open watches of Clusters end with 410 Gone, and none can start from before it. */
  expireCapiWatches() {
    this.capiHistoryFrom = this.rv;
    const gone = JSON.stringify({ type: "ERROR", object: status(410, "Expired", "too old resource version") }) + "\n";
    for (const res of this.capiWatchers.keys()) res.end(gone);
    this.capiWatchers.clear();
  }

  /** The Secret CAPI writes for a Cluster's admin kubeconfig: `<cluster>-kubeconfig`, key `value`. */
  addCapiKubeconfigSecret(namespace: string, clusterName: string, kubeconfigText: string) {
    const name = `${clusterName}-kubeconfig`;
    this.addSecret(name, { value: kubeconfigText }, namespace);
    const secret = this.secrets.get(`${namespace}/${name}`)!;
    secret.type = "cluster.x-k8s.io/secret";
    secret.metadata.labels = { "cluster.x-k8s.io/cluster-name": clusterName };
  }

  private capiClusterState(namespace: string, name: string): CapiClusterState {
    const state = this.capiClusters.get(`${namespace}/${name}`);
    if (!state) throw new Error(`no Cluster ${namespace}/${name}`);
    return state;
  }

  private capiChanged(
    type: "ADDED" | "MODIFIED" | "DELETED",
    state: CapiClusterState,
    labelsBefore: Record<string, string> | null,
  ) {
    state.metadata.resourceVersion = String(++this.rv);
    const event = { rv: this.rv, type, object: structuredClone(state), labelsBefore };
    this.capiEvents.push(event);
    for (const [res, w] of this.capiWatchers) {
      const line = this.capiEventLine(w, event);
      if (line) res.write(line);
    }
  }

  /**
   * The line a watch gets for a change, or null: filtered by namespace and label selector, where a
   * change that makes the object match (or stop matching) arrives as ADDED (or DELETED), as the API
   * server sends it.
   */
  private capiEventLine(
    w: { version: CapiVersion; namespace: string | undefined; matches: (l: Record<string, string>) => boolean },
    e: (typeof this.capiEvents)[number],
  ): string | null {
    if (w.namespace && e.object.metadata.namespace !== w.namespace) return null;
    const now = w.matches(e.object.metadata.labels);
    const before = e.labelsBefore ? w.matches(e.labelsBefore) : now;
    if (!now && !before) return null;
    const type = e.type !== "MODIFIED" || (now && before) ? e.type : now ? "ADDED" : "DELETED";
    return JSON.stringify({ type, object: renderCapiCluster(e.object, w.version, this.capiVersions) }) + "\n";
  }

  private serveCapi(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    method: string,
    p: string,
    query: Record<string, string>,
    contentType: string,
    body: unknown,
  ) {
    const served = this.capiVersions;
    const notFound = () => this.send(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
    if (p === `/apis/${CAPI_GROUP}`) {
      if (!served.length || method !== "GET") return notFound();
      const versions = CAPI_VERSIONS.filter((v) => served.includes(v)).map((v) => ({
        groupVersion: `${CAPI_GROUP}/${v}`,
        version: v,
      }));
      return this.send(res, 200, {
        kind: "APIGroup",
        apiVersion: "v1",
        name: CAPI_GROUP,
        versions,
        preferredVersion: versions[0],
      });
    }
    const m = /^\/apis\/cluster\.x-k8s\.io\/([^/]+)(?:\/namespaces\/([^/]+))?(?:\/(clusters)(?:\/([^/]+))?)?$/.exec(p);
    const version = m?.[1] as CapiVersion | undefined;
    if (!m || !version || !served.includes(version)) return notFound();
    const [, , namespace, plural, name] = m;
    if (!plural) {
      if (namespace || method !== "GET") return notFound();
      return this.send(res, 200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: `${CAPI_GROUP}/${version}`,
        resources: [
          {
            name: "clusters",
            singularName: "cluster",
            namespaced: true,
            kind: "Cluster",
            verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
            shortNames: ["cl"],
            categories: ["cluster-api"],
          },
          { name: "clusters/status", singularName: "", namespaced: true, kind: "Cluster", verbs: ["get", "patch", "update"] },
        ],
      });
    }
    if (!name) {
      if (method !== "GET")
        return this.send(
          res,
          405,
          status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"),
        );
      const matches = selectorMatcher(query.labelSelector);
      if (!matches)
        return this.send(
          res,
          400,
          status(400, "BadRequest", `unable to parse requirement: ${query.labelSelector} (this fake reads equality terms)`),
        );
      if (query.watch === "1" || query.watch === "true") return this.watchCapi(req, res, version, namespace, matches, query);
      const items = [...this.capiClusters.values()]
        .filter((c) => (!namespace || c.metadata.namespace === namespace) && matches(c.metadata.labels))
        .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
      const list = this.page(items, query, "ClusterList", `${CAPI_GROUP}/${version}`);
      return this.send(res, 200, { ...list, items: list.items.map((c) => renderCapiCluster(c, version, served)) });
    }
    if (!namespace) return notFound();
    const state = this.capiClusters.get(`${namespace}/${name}`);
    if (!state) return this.send(res, 404, status(404, "NotFound", `clusters.cluster.x-k8s.io "${name}" not found`));
    if (method === "GET") return this.send(res, 200, renderCapiCluster(state, version, served));
    if (method === "PATCH") return this.patchCapiCluster(res, state, version, query, contentType, body);
    return this.send(res, 405, status(405, "MethodNotAllowed", "this fake does not allow this method on a Cluster"));
  }

  private watchCapi(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    version: CapiVersion,
    namespace: string | undefined,
    matches: (l: Record<string, string>) => boolean,
    query: Record<string, string>,
  ) {
    // No resourceVersion (or "0"): the current objects as ADDED first, as the API server starts such a watch.
    const from = Number(query.resourceVersion || "0");
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    if (from > 0 && from < this.capiHistoryFrom) {
      return res.end(
        JSON.stringify({ type: "ERROR", object: status(410, "Expired", `too old resource version: ${from}`) }) + "\n",
      );
    }
    const w = { version, namespace, matches, bookmarks: query.allowWatchBookmarks === "true" };
    if (from === 0) {
      for (const c of this.capiClusters.values()) {
        const line = this.capiEventLine(w, { rv: 0, type: "ADDED", object: c, labelsBefore: null });
        if (line) res.write(line);
      }
    } else {
      for (const e of this.capiEvents) {
        if (e.rv <= from) continue;
        const line = this.capiEventLine(w, e);
        if (line) res.write(line);
      }
    }
    this.capiWatchers.set(res, w);
    const timer = setTimeout(() => res.end(), Number(query.timeoutSeconds ?? 1800) * 1000);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      this.capiWatchers.delete(res);
    };
    req.socket.on("close", done);
    res.on("finish", done);
  }

  /**
   * A PATCH of a Cluster: server-side apply (labels and annotations, owned per field manager; the
   * rest of the applied object is not stored: the fake never changes a Cluster's spec) or a JSON
   * merge patch of labels and annotations. A change bumps the resourceVersion and is MODIFIED.
   */
  private patchCapiCluster(
    res: http.ServerResponse,
    state: CapiClusterState,
    version: CapiVersion,
    query: Record<string, string>,
    contentType: string,
    body: unknown,
  ) {
    const { name, namespace } = state.metadata;
    const patch = (body ?? {}) as {
      apiVersion?: string;
      kind?: string;
      metadata?: {
        name?: string;
        namespace?: string;
        uid?: string;
        resourceVersion?: string;
        labels?: Record<string, unknown> | null;
        annotations?: Record<string, unknown> | null;
      };
    };
    const meta = patch.metadata ?? {};
    for (const field of ["labels", "annotations"] as const) {
      const values = Object.values(meta[field] ?? {});
      const bad = values.some((v) => typeof v !== "string" && !(contentType === "application/merge-patch+json" && v === null));
      if (bad)
        return this.send(
          res,
          422,
          status(422, "Invalid", `Cluster.cluster.x-k8s.io "${name}" is invalid: metadata.${field}: values must be strings`),
        );
    }
    if (meta.uid && meta.uid !== state.metadata.uid)
      return this.send(
        res,
        409,
        status(
          409,
          "Conflict",
          `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${state.metadata.uid}`,
        ),
      );
    if (meta.resourceVersion && meta.resourceVersion !== state.metadata.resourceVersion)
      return this.send(
        res,
        409,
        status(
          409,
          "Conflict",
          `Operation cannot be fulfilled on clusters.cluster.x-k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        ),
      );
    const before = structuredClone(state.metadata);
    if (contentType === "application/apply-patch+yaml") {
      const manager = query.fieldManager;
      if (!manager) return this.send(res, 400, status(400, "BadRequest", "PATCH, fieldManager is required for apply patch"));
      if (patch.apiVersion !== `${CAPI_GROUP}/${version}` || patch.kind !== "Cluster" || meta.name !== name)
        return this.send(
          res,
          400,
          status(400, "BadRequest", "the applied object's apiVersion, kind or name does not match the URL"),
        );
      if (meta.namespace && meta.namespace !== namespace)
        return this.send(
          res,
          400,
          status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"),
        );
      const force = query.force === "true";
      const fields = (["labels", "annotations"] as const).map((field) =>
        applyMapField(state.metadata[field], field, state.owners, manager, (meta[field] ?? {}) as Record<string, string>, force),
      );
      const conflicts = fields.flatMap((f) => f.conflicts);
      if (conflicts.length)
        return this.send(res, 409, {
          ...status(
            409,
            "Conflict",
            `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? "s" : ""}: ${conflicts.join(", ")}`,
          ),
          details: {
            name,
            group: CAPI_GROUP,
            kind: "clusters",
            causes: conflicts.map((message) => ({ reason: "FieldManagerConflict", message })),
          },
        });
      for (const f of fields) f.apply();
      this.applied.push({ fieldManager: manager, force, object: structuredClone(body) as AppliedObject["object"] });
    } else if (contentType === "application/merge-patch+json") {
      for (const field of ["labels", "annotations"] as const) {
        if (meta[field] === undefined) continue;
        state.metadata[field] = (meta[field] === null ? {} : mergePatch(state.metadata[field], meta[field])) as Record<
          string,
          string
        >;
      }
      dropChangedOwnership(state);
    } else {
      return this.send(
        res,
        415,
        status(415, "UnsupportedMediaType", `this fake patches Clusters with apply or merge patches, not ${contentType}`),
      );
    }
    const changed =
      JSON.stringify(before.labels) !== JSON.stringify(state.metadata.labels) ||
      JSON.stringify(before.annotations) !== JSON.stringify(state.metadata.annotations);
    if (changed) this.capiChanged("MODIFIED", state, before.labels);
    return this.send(res, 200, renderCapiCluster(state, version, this.capiVersions));
  }

  // --- Namespaces with labels (a management cluster's opt-in) ---

  /** Adds a namespace (or sets the labels of one the cluster has). */
  addNamespace(name: string, labels: Record<string, string> = {}) {
    if (!this.cluster.namespaces.includes(name)) this.cluster.namespaces.push(name);
    this.setNamespaceLabels(name, labels);
  }

  /** Replaces a namespace's labels (its kubernetes.io/metadata.name label stays, as the API server keeps it). */
  setNamespaceLabels(name: string, labels: Record<string, string>) {
    if (!this.cluster.namespaces.includes(name)) throw new Error(`no namespace ${name}`);
    const meta = this.namespaceMeta(name);
    meta.labels = { ...labels };
    meta.resourceVersion = String(++this.rv);
  }

  private namespaceMeta(name: string) {
    let meta = this.namespaceMetas.get(name);
    if (!meta) {
      meta = { uid: crypto.randomUUID(), resourceVersion: "7", labels: {} };
      this.namespaceMetas.set(name, meta);
    }
    return meta;
  }

  private namespaceObject(name: string) {
    const meta = this.namespaceMeta(name);
    return {
      kind: "Namespace",
      apiVersion: "v1",
      metadata: {
        name,
        uid: name === "kube-system" ? this.kubeSystemUid : meta.uid,
        resourceVersion: meta.resourceVersion,
        labels: { "kubernetes.io/metadata.name": name, ...meta.labels },
      },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    };
  }

  // --- Server-side apply of the agent's manifest (a workload cluster) ---

  /** What was applied, in order, with the field manager. */
  appliedObjects(): AppliedObject[] {
    return structuredClone(this.applied);
  }

  /**
   * Applies one object as server-side apply (or `kubectl apply`) would, into the models the agent
   * reads: Secrets get the applied keys (stringData encoded) with the rest kept (a tombstone
   * survives a GitOps re-apply); a Lease is created if missing; the Role in the agent's namespace
   * sets namespaceRules (RBAC); bindings exist; the Deployment is merged into the stored one of
   * that name (containers by name, as the agent's own apply of it) or replaces it (the fake holds
   * one Deployment). Other kinds are kept as applied. Field ownership is not modelled here (the
   * applied fields win); Clusters have it (patchCapiCluster). Returns the object as stored.
   */
  applyObject(o: AppliedObject["object"], how: { fieldManager: string; force?: boolean; operation?: "Apply" | "Update" }) {
    return this.applyObjectAt(o, how).object;
  }

  private applyObjectAt(
    o: AppliedObject["object"],
    how: { fieldManager: string; force?: boolean; operation?: "Apply" | "Update" },
  ): { object: Record<string, unknown>; created: boolean } {
    this.applied.push({ fieldManager: how.fieldManager, force: !!how.force, object: structuredClone(o) });
    const { name } = o.metadata;
    const namespace = o.metadata.namespace;
    const key = `${o.kind}/${namespace ?? ""}/${name}`;
    const previous = this.appliedStore.get(key) as { metadata: Record<string, unknown> } | undefined;
    const managedFields = (existing: unknown) => [
      ...((existing ?? []) as { manager: string }[]).filter((f) => f.manager !== how.fieldManager),
      {
        manager: how.fieldManager,
        operation: how.operation ?? "Apply",
        apiVersion: o.apiVersion,
        time: wallClock(),
        fieldsType: "FieldsV1",
      },
    ];
    const prevMeta = (previous?.metadata ?? {}) as {
      labels?: object;
      annotations?: object;
      uid?: string;
      creationTimestamp?: string;
      managedFields?: unknown;
    };
    const stored: Record<string, unknown> = {
      ...previous,
      ...o,
      metadata: {
        ...prevMeta,
        ...o.metadata,
        labels: { ...prevMeta.labels, ...o.metadata.labels },
        annotations: { ...prevMeta.annotations, ...o.metadata.annotations },
        uid: prevMeta.uid ?? crypto.randomUUID(),
        resourceVersion: String(++this.rv),
        creationTimestamp: prevMeta.creationTimestamp ?? wallClock(),
        managedFields: managedFields(prevMeta.managedFields),
      },
    };
    delete stored.stringData;
    this.appliedStore.set(key, stored);

    if (o.kind === "Namespace") {
      const created = !this.cluster.namespaces.includes(name);
      if (created) this.cluster.namespaces.push(name);
      const meta = this.namespaceMeta(name);
      meta.labels = { ...meta.labels, ...o.metadata.labels };
      meta.resourceVersion = String(this.rv);
      return { object: this.namespaceObject(name), created };
    }
    if (o.kind === "Secret") {
      const ns = namespace ?? this.namespace;
      const data: Record<string, string> = { ...(o.data as Record<string, string> | undefined) };
      for (const [k, v] of Object.entries((o.stringData ?? {}) as Record<string, string>))
        data[k] = Buffer.from(v).toString("base64");
      const existing = this.secrets.get(`${ns}/${name}`);
      if (!existing) {
        this.addSecret(name, {}, ns);
        const secret = this.secrets.get(`${ns}/${name}`)!;
        secret.data = data;
        secret.type = (o.type as string | undefined) ?? "Opaque";
        if (o.metadata.labels) secret.metadata.labels = { ...o.metadata.labels };
        return { object: { apiVersion: "v1", kind: "Secret", ...secret }, created: true };
      }
      const changed = Object.entries(data).some(([k, v]) => existing.data[k] !== v);
      Object.assign(existing.data, data);
      if (changed) existing.metadata.resourceVersion = String(++this.rv);
      return { object: { apiVersion: "v1", kind: "Secret", ...existing }, created: false };
    }
    if (o.kind === "Lease") {
      const ns = namespace ?? this.namespace;
      const created = !this.leases.has(`${ns}/${name}`);
      if (created) this.addLease(name, ns, (o.spec ?? {}) as Record<string, unknown>);
      return { object: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...this.leases.get(`${ns}/${name}`) }, created };
    }
    if (o.kind === "Role" && namespace === this.namespace) this.namespaceRules = o.rules as RbacRule[];
    else if (o.kind === "RoleBinding") this.roleBindings.add(`${namespace}/${name}`);
    else if (o.kind === "ClusterRoleBinding") this.clusterRoleBindings.add(name);
    else if (o.kind === "Deployment") {
      const meta = this.deployment.metadata as { name: string; namespace: string; generation?: number; uid?: string };
      const same = meta.name === name && meta.namespace === namespace;
      const next = (same ? strategicPatch(this.deployment, o) : structuredClone(o)) as Record<string, unknown>;
      const specChanged = !same || JSON.stringify(next.spec) !== JSON.stringify(this.deployment.spec);
      const nextMeta = next.metadata as Record<string, unknown>;
      next.metadata = {
        ...nextMeta,
        uid: (same && meta.uid) || crypto.randomUUID(),
        resourceVersion: String(++this.rv),
        generation: same ? (meta.generation ?? 1) + (specChanged ? 1 : 0) : 1,
        managedFields: managedFields(same ? nextMeta.managedFields : undefined),
      };
      this.deployment = next;
      return { object: this.deployment, created: !same };
    }
    return { object: stored, created: !previous };
  }

  /** PATCH application/apply-patch+yaml to an object path of APPLY_KINDS. */
  private serveApply(
    res: http.ServerResponse,
    { kind, namespace, name }: NonNullable<ReturnType<typeof applyTarget>>,
    query: Record<string, string>,
    body: unknown,
  ) {
    const { group, version, plural } = kind;
    if (!query.fieldManager)
      return this.send(res, 400, status(400, "BadRequest", "PATCH, fieldManager is required for apply patch"));
    if (this.applyForbidden.has(kind.plural)) {
      const scope = namespace ? `in the namespace "${namespace}"` : "at the cluster scope";
      const what = group ? `${plural}.${group}` : plural;
      return this.send(
        res,
        403,
        status(
          403,
          "Forbidden",
          `${what} "${name}" is forbidden: User "admin" cannot patch resource "${plural}" in API group "${group}" ${scope}`,
        ),
      );
    }
    const o = body as Partial<AppliedObject["object"]> | undefined;
    const meta = o?.metadata;
    const apiVersion = group ? `${group}/${version}` : version;
    if (!o || !meta || o.apiVersion !== apiVersion || o.kind !== kind.kind || meta.name !== name)
      return this.send(
        res,
        400,
        status(400, "BadRequest", "the applied object's apiVersion, kind or name does not match the URL"),
      );
    if (meta.namespace && meta.namespace !== namespace)
      return this.send(
        res,
        400,
        status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"),
      );
    const object = { ...o, metadata: { ...meta, ...(namespace ? { namespace } : {}) } } as AppliedObject["object"];
    const result = this.applyObjectAt(object, { fieldManager: query.fieldManager, force: query.force === "true" });
    return this.send(res, result.created ? 201 : 200, result.object);
  }

  async stop() {
    for (const res of this.nodeWatchers) res.end();
    this.nodeWatchers.clear();
    for (const res of this.capiWatchers.keys()) res.end();
    this.capiWatchers.clear();
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
    const admin = auth.startsWith("Bearer ") && this.adminTokens.has(auth.slice(7));
    if (!admin && (!auth.startsWith("Bearer ") || !this.tokens.has(auth.slice(7)))) {
      return this.send(res, 401, status(401, "Unauthorized", "Unauthorized"));
    }
    const denied = admin ? null : this.forbidden(method, p);
    if (denied) return this.send(res, 403, status(403, "Forbidden", denied));
    const metadataOnly = String(req.headers.accept ?? "").includes("as=PartialObjectMetadataList");
    const c = this.cluster;
    let m: RegExpExecArray | null;

    if (p === `/apis/${CAPI_GROUP}` || p.startsWith(`/apis/${CAPI_GROUP}/`))
      return this.serveCapi(req, res, method, p, query, contentType, body);
    const applyTo = method === "PATCH" && contentType === "application/apply-patch+yaml" ? applyTarget(p) : null;
    if (applyTo) return this.serveApply(res, applyTo, query, body);
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
      const matches = selectorMatcher(query.labelSelector);
      if (!matches) return this.send(res, 400, status(400, "BadRequest", `unable to parse requirement: ${query.labelSelector}`));
      // Items of a list carry no kind; as metadata only, nothing but metadata.
      const items = c.namespaces
        .map((name) => this.namespaceObject(name))
        .filter((ns) => matches(ns.metadata.labels))
        .map((ns) => (metadataOnly ? { metadata: ns.metadata } : { metadata: ns.metadata, spec: ns.spec, status: ns.status }));
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
    if (method === "GET" && (m = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(p))) {
      if (!c.namespaces.includes(m[1]!)) return this.send(res, 404, status(404, "NotFound", `namespaces "${m[1]}" not found`));
      return this.send(res, 200, this.namespaceObject(m[1]!));
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
        // (Server-side apply is served by serveApply.)
        else return this.send(res, 415, status(415, "UnsupportedMediaType", "unsupported patch type"));
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
