// deploy/kubernetes: every object valid against the Kubernetes OpenAPI schemas (kubernetes-models),
// the kustomization listing every manifest, and the Deployment wired to this app: its real health
// paths, ports the Services point at, a restricted security context, env names lib/env.ts reads,
// Secret keys the example Secret has. No API server here: this is what can be checked offline.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import YAML from "yaml";
import { isTrustedProxy, trustedProxies } from "@/lib/domain/client-address";
import { ENV_NAMES, parseEnv } from "@/lib/env";

const DIR = path.join(process.cwd(), "deploy/kubernetes");
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment,
  "networking.k8s.io/v1/Ingress": Ingress,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/Namespace": Namespace,
  "v1/Secret": Secret,
  "v1/Service": Service,
};

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests of many shapes, asserted field by field
  spec?: any;
  stringData?: Record<string, string>;
};
const files = readdirSync(DIR).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
const objects = new Map<string, Obj[]>(
  files.map((f) => [f, YAML.parseAllDocuments(readFileSync(path.join(DIR, f), "utf8")).map((d) => d.toJS() as Obj)]),
);
const all = [...objects.values()].flat();
const one = (kind: string, name?: string) => {
  const found = all.filter((o) => o.kind === kind && (!name || o.metadata.name === name));
  assert.equal(found.length, 1, `one ${kind} ${name ?? ""}`);
  return found[0]!;
};
const kustomization = YAML.parse(readFileSync(path.join(DIR, "kustomization.yaml"), "utf8"));
const deployment = one("Deployment");
const pod = deployment.spec.template.spec;
const container = pod.containers[0];

test("every object is valid against the Kubernetes schema", () => {
  assert.ok(all.length >= 7);
  for (const obj of all) {
    const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
    assert.ok(Model, `${obj.apiVersion} ${obj.kind} has a model in this test`);
    assert.doesNotThrow(() => new Model(obj as never).validate(), `${obj.kind} ${obj.metadata.name}`);
  }
  // The validator does catch mistakes (a port that is not a number, here).
  const broken = structuredClone(one("Service", "fleet-registry"));
  broken.spec.ports[0].port = "three thousand";
  assert.throws(() => new Service(broken as never).validate());
});

test("the kustomization lists every manifest but the example Secret, and those exist", () => {
  assert.equal(kustomization.kind, "Kustomization");
  const listed = new Set<string>(kustomization.resources);
  for (const f of files) assert.equal(listed.has(f), !f.endsWith(".example.yaml"), f);
  for (const f of listed) assert.ok(files.includes(f), `${f} exists`);
  assert.equal(kustomization.namespace, one("Namespace").metadata.name);
  assert.equal(one("Namespace").metadata.name, "fleet-registry");
});

test("probes use the app's health paths on the console port; the Services target the container's ports", () => {
  const ports = new Map<string, number>(
    container.ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]),
  );
  assert.deepEqual(Object.fromEntries(ports), { console: 3000, agent: 8443 });
  const env = new Map<string, string>(
    container.env
      .filter((e: { value?: string }) => e.value !== undefined)
      .map((e: { name: string; value: string }) => [e.name, e.value]),
  );
  assert.equal(Number(env.get("PORT")), ports.get("console"), "PORT is the console port");
  assert.equal(Number(env.get("AGENT_PORT")), ports.get("agent"), "AGENT_PORT is the agent port");
  assert.equal(container.readinessProbe.httpGet.path, "/api/readyz");
  assert.equal(container.livenessProbe.httpGet.path, "/api/healthz");
  assert.equal(container.startupProbe.httpGet.path, "/api/healthz");
  for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe])
    assert.equal(probe.httpGet.port, "console");
  // The routes exist in this app.
  for (const route of ["app/api/readyz/route.ts", "app/api/healthz/route.ts", "app/api/metrics/route.ts"])
    assert.ok(readdirSync(path.join(process.cwd(), path.dirname(route))).includes("route.ts"), route);

  const selector = deployment.spec.selector.matchLabels;
  for (const [k, v] of Object.entries(selector))
    assert.equal(deployment.spec.template.metadata.labels[k], v, "the pods carry the selector");
  for (const svc of all.filter((o) => o.kind === "Service")) {
    assert.deepEqual(svc.spec.selector, selector, `${svc.metadata.name} selects the pods`);
    for (const p of svc.spec.ports)
      assert.ok(ports.has(p.targetPort), `${svc.metadata.name}: ${p.targetPort} is a container port`);
  }
  assert.deepEqual(
    one("Service", "fleet-registry").spec.ports.map((p: { targetPort: string }) => p.targetPort),
    ["console", "agent"],
    "the in-cluster Service has both ports",
  );
  const agentService = one("Service", "fleet-registry-agent");
  assert.deepEqual(
    agentService.spec.ports.map((p: { targetPort: string }) => p.targetPort),
    ["agent"],
  );
  assert.equal(agentService.spec.externalTrafficPolicy, "Local", "agents' own addresses reach the rate limit");
  const backend = one("Ingress").spec.rules[0].http.paths[0].backend.service;
  assert.deepEqual(backend, { name: "fleet-registry", port: { name: "console" } }, "the Ingress serves the console only");
  assert.deepEqual(one("PodDisruptionBudget").spec.selector.matchLabels, selector);
  assert.ok(deployment.spec.replicas >= 2 && one("PodDisruptionBudget").spec.minAvailable < deployment.spec.replicas);
});

test("the pod runs restricted: non-root as the image's user, read-only root, no privileges, seccomp", () => {
  const dockerfile = readFileSync(path.join(process.cwd(), "Dockerfile"), "utf8");
  const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
  assert.ok(user, "the Dockerfile runs as a numeric user");
  assert.equal(pod.securityContext.runAsNonRoot, true);
  // The image's user runs it: a pinned one is refused by OpenShift's restricted-v2.
  for (const key of ["runAsUser", "runAsGroup", "fsGroup"]) assert.equal(pod.securityContext[key], undefined, key);
  assert.equal(pod.securityContext.seccompProfile.type, "RuntimeDefault");
  assert.equal(pod.automountServiceAccountToken, false);
  const sc = container.securityContext;
  assert.equal(sc.allowPrivilegeEscalation, false);
  assert.equal(sc.readOnlyRootFilesystem, true);
  assert.equal(sc.runAsNonRoot, true);
  assert.deepEqual(sc.capabilities.drop, ["ALL"]);
  assert.equal(sc.capabilities.add, undefined);
  assert.equal(sc.privileged ?? false, false);
  // What the app writes is a volume: its data dir (DATA_DIR), /tmp, Next's cache.
  const env = new Map(container.env.map((e: { name: string; value?: string }) => [e.name, e.value]));
  const mounts = new Map<string, string>(
    container.volumeMounts.map((m: { mountPath: string; name: string }) => [m.mountPath, m.name]),
  );
  for (const dir of [env.get("DATA_DIR"), "/tmp", "/app/.next/cache"]) {
    const volume = pod.volumes.find((v: { name: string }) => v.name === mounts.get(dir as string));
    assert.ok(volume?.emptyDir, `${dir} is an emptyDir`);
  }
  assert.ok(container.resources.requests.cpu && container.resources.requests.memory && container.resources.limits.memory);
  assert.equal(one("Namespace").metadata.labels?.["pod-security.kubernetes.io/enforce"], "restricted");
});

test("every env name is one lib/env.ts reads; secrets come from the Secret the example shows", () => {
  const names = new Set(ENV_NAMES);
  const secret = one("Secret");
  for (const e of container.env as { name: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[]) {
    assert.ok(names.has(e.name), `${e.name} is read by lib/env.ts`);
    if (!e.valueFrom) continue;
    assert.equal(e.valueFrom.secretKeyRef.name, secret.metadata.name, `${e.name} comes from the Secret`);
    assert.ok(
      secret.stringData?.[e.valueFrom.secretKeyRef.key] !== undefined,
      `the example Secret has ${e.valueFrom.secretKeyRef.key}`,
    );
  }
  const fromSecret = container.env.filter((e: { valueFrom?: unknown }) => e.valueFrom).map((e: { name: string }) => e.name);
  for (const required of ["DATABASE_URL", "FLEET_CA_KEK", "AUTH_SECRET", "METRICS_TOKEN"])
    assert.ok(fromSecret.includes(required), required);
  // The example's placeholders are never usable: applied as they are, the app refuses to start.
  const values = secret.stringData!;
  assert.ok(Object.values(values).some((v) => v.includes("CHANGE")));
  for (const key of ["FLEET_CA_KEK", "AUTH_SECRET", "METRICS_TOKEN", "ADMIN_PASSWORD"]) {
    assert.throws(
      () => parseEnv({ NODE_ENV: "production", ADMIN_EMAIL: "admin@example.com", [key]: values[key] }),
      new RegExp(key),
      `${key} placeholder is refused`,
    );
  }
  // A production console listening beyond loopback does not start without its public URL.
  const publicUrl = container.env.find((e: { name: string }) => e.name === "NEXTAUTH_URL")?.value as string | undefined;
  assert.match(publicUrl ?? "", /^https:\/\//, "the Deployment sets NEXTAUTH_URL");
  assert.equal(
    parseEnv({ NODE_ENV: "production", NEXTAUTH_URL: publicUrl, DATABASE_URL: values.DATABASE_URL }).database.dialect,
    "postgres",
    "the example is the external PostgreSQL",
  );
});

test("X-Forwarded-For is believed from the ingress controller's range only: a narrow placeholder, never the pod network", () => {
  const env = new Map<string, string>(container.env.map((e: { name: string; value?: string }) => [e.name, e.value ?? ""]));
  const cidrs = parseEnv({ NODE_ENV: "production", ...Object.fromEntries(env) }).TRUSTED_PROXY_CIDRS;
  assert.ok(cidrs.length > 0, "set, to the ingress controller's addresses");
  const proxies = trustedProxies(cidrs);
  for (const cidr of cidrs) {
    const [address = "", bits] = cidr.split("/");
    const narrowest = address.includes(".") ? 24 : 120;
    assert.ok(Number(bits ?? 128) >= narrowest, `${cidr} is narrower than /${narrowest}`);
  }
  // Disjoint from the pod network the NetworkPolicy names (two CIDRs overlap when one holds the other's first address).
  const podNetwork = (one("NetworkPolicy").spec.ingress as { from: { ipBlock?: { except?: string[] } }[] }[]).flatMap((r) =>
    r.from.flatMap((p) => p.ipBlock?.except ?? []),
  );
  assert.ok(podNetwork.length > 0);
  const pods = trustedProxies(podNetwork);
  for (const range of podNetwork)
    assert.equal(isTrustedProxy(proxies, range.split("/")[0]!), false, `the pod network ${range} is not trusted`);
  for (const cidr of cidrs) assert.equal(isTrustedProxy(pods, cidr.split("/")[0]!), false, `${cidr} is outside the pod network`);
  // The comment beside it says to edit it, and why.
  const manifest = readFileSync(path.join(process.cwd(), "deploy/kubernetes/deployment.yaml"), "utf8");
  const comment = manifest.slice(0, manifest.indexOf("- name: TRUSTED_PROXY_CIDRS")).split("\n").slice(-12).join("\n");
  assert.match(comment, /EDIT: the ingress controller's addresses only/);
  assert.match(comment, /Never the pod network/);
});

test("the agent port trusts no forwarded certificate and is closed to the pod network but the agent's namespace", () => {
  // The agent Service is TLS passthrough: mutual TLS ends at the pod, nothing forwards certificates.
  const env = new Map<string, string>(container.env.map((e: { name: string; value?: string }) => [e.name, e.value ?? ""]));
  assert.equal(env.has("TRUSTED_CLIENT_CERT_PROXY_CIDRS"), false);
  assert.equal(parseEnv({ NODE_ENV: "production", ...Object.fromEntries(env) }).clientCertProxies, null);

  const policy = one("NetworkPolicy");
  assert.deepEqual(policy.spec.podSelector.matchLabels, deployment.spec.selector.matchLabels);
  assert.deepEqual(policy.spec.policyTypes, ["Ingress"]);
  type Rule = {
    ports: { port: string }[];
    from: { ipBlock?: { cidr: string; except?: string[] }; namespaceSelector?: unknown }[];
  };
  const rules = policy.spec.ingress as Rule[];
  const forPort = (name: string) => rules.filter((r) => r.ports.some((p) => p.port === name));
  // Every rule names its port: nothing is open on a port no rule mentions.
  assert.ok(rules.every((r) => r.ports.length > 0));
  const agent = forPort("agent").flatMap((r) => r.from);
  for (const peer of agent.filter((p) => p.ipBlock)) {
    const { cidr, except = [] } = peer.ipBlock!;
    assert.ok(except.length > 0, `${cidr} excludes the pod network`);
  }
  const namespaces = agent.filter((p) => p.namespaceSelector).map((p) => JSON.stringify(p.namespaceSelector));
  assert.deepEqual(namespaces, [JSON.stringify({ matchLabels: { "kubernetes.io/metadata.name": "fleet-system" } })]);
  // The console port is not reachable from outside through this policy.
  assert.ok(forPort("console").every((r) => r.from.every((p) => !p.ipBlock)));
});
