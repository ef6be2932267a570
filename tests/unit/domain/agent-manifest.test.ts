// The agent command and Kubernetes manifest the console hands out after minting: flags that the
// agent CLI accepts, a manifest that parses as YAML and runs the agent safely.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentArgs } from "../../../lib/agent/args";
import { EMPTY_POD_OPTIONS, parseAgentPodOptions } from "../../../lib/domain/agent-pod-options";
import { ClusterRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole";
import { ClusterRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding";
import { Role } from "kubernetes-models/rbac.authorization.k8s.io/v1/Role";
import { RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Secret } from "kubernetes-models/v1/Secret";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import YAML from "yaml";
import { AGENT_OBJECT_NAMES, KUBE_CALLS, type KubeCall } from "../../../lib/domain/agent-kube-calls";
import {
  AGENT_NAMESPACE,
  agentCommand,
  agentUrlFor,
  defaultAgentUrl,
  manifestBlockers,
  proxyUrlProblem,
  serverAddressProblem,
  agentImageFor,
  agentManifest,
  isLoopbackUrl,
  labelsToSend,
  manifestFileName,
  NODE_ACTIONS_ROLE,
  shellQuote,
  unreachableRequiredLabels,
  type AgentInstall,
} from "../../../lib/domain/agent-manifest";

const yaml = { loadAll: (text: string): unknown[] => YAML.parseAllDocuments(text).map((d) => d.toJS()) };

const FINGERPRINT = `sha256:${"ab".repeat(32)}`;
const TOKEN = "frt_abc123def456_s3cr3t-Secret_value";
const INSTALL: AgentInstall = {
  agentUrl: "https://fleet.example.com:8443",
  caFingerprint: FINGERPRINT,
  agentImage: "registry.example.com/fleet/agent:1.4.0",
  clusterName: "prod-eu-1",
  labels: { region: "eu-west-1", env: "prod" },
};

/** Splits a shell command line the way sh would for the quoting shellQuote produces. */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      current += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === "\\") {
      current += line[++i];
      inWord = true;
    } else if (ch === " ") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

type Obj = Record<string, unknown> & { kind: string };
function docs(text: string): Obj[] {
  return yaml.loadAll(text).filter((d): d is Obj => !!d);
}
function get(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

test("the command is the one the brief names, labels sorted, and the agent CLI accepts it", () => {
  const cmd = agentCommand(INSTALL);
  assert.equal(
    cmd,
    `npm run agent -- --server https://fleet.example.com:8443 --token-file token.txt --name prod-eu-1 --labels env=prod,region=eu-west-1 --state-dir ./agent-state --ca-fingerprint ${FINGERPRINT} --kubeconfig ~/.kube/config`,
  );
  const argv = shellSplit(cmd).slice(4);
  const parsed = parseAgentArgs(argv);
  assert.equal(parsed.facts, "kubernetes", "the laptop path reads the real cluster");
  assert.equal(parsed.kubeconfig, "~/.kube/config");
  assert.equal(parsed.server.href, "https://fleet.example.com:8443/");
  assert.equal(parsed.name, "prod-eu-1");
  assert.deepEqual(parsed.labels, { env: "prod", region: "eu-west-1" });
  assert.equal(parsed.tokenFile, "token.txt");
  assert.equal(parsed.caFingerprint, FINGERPRINT);
});

test("no labels: no --labels flag; the token never appears in the command", () => {
  const cmd = agentCommand({ ...INSTALL, labels: {} });
  assert.doesNotMatch(cmd, /--labels/);
  assert.doesNotMatch(agentCommand(INSTALL), /frt_/);
});

test("shellQuote leaves safe words bare and single-quotes the rest, round-tripping through sh rules", () => {
  assert.equal(shellQuote("https://a.example:8443"), "https://a.example:8443");
  assert.equal(shellQuote("a b"), "'a b'");
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  for (const s of ["a b", "it's", "$(rm -rf /)", "x;y", "`id`"]) assert.deepEqual(shellSplit(shellQuote(s)), [s]);
  const cmd = agentCommand({ ...INSTALL, agentUrl: "https://h:1/$(id)" });
  assert.ok(cmd.includes(`'https://h:1/$(id)'`));
});

const MANIFEST = { ...INSTALL, token: TOKEN };
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  ServiceAccount,
  Secret,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  Deployment,
};

test("the manifest: every object, in order, valid against the Kubernetes OpenAPI schemas", () => {
  for (const allowNodeActions of [false, true]) {
    const objects = docs(agentManifest({ ...MANIFEST, allowNodeActions }));
    assert.deepEqual(
      objects.map((o) => `${o.kind}/${get(o, "metadata.namespace") ?? ""}/${get(o, "metadata.name")}`),
      [
        "Namespace//fleet-system",
        "ServiceAccount/fleet-system/fleet-agent",
        "ClusterRole//fleet-agent",
        "ClusterRoleBinding//fleet-agent",
        "Role/fleet-system/fleet-agent",
        "RoleBinding/fleet-system/fleet-agent",
        "Role/kube-public/fleet-agent-cluster-info",
        "RoleBinding/kube-public/fleet-agent-cluster-info",
        ...(allowNodeActions ? [`ClusterRole//${NODE_ACTIONS_ROLE}`, `ClusterRoleBinding//${NODE_ACTIONS_ROLE}`] : []),
        "Secret/fleet-system/fleet-agent-token",
        "Secret/fleet-system/fleet-agent-state",
        "Deployment/fleet-system/fleet-agent",
      ],
    );
    for (const o of objects) {
      const Model = MODELS[o.kind];
      assert.ok(Model, o.kind);
      assert.doesNotThrow(() => new Model(o as never).validate(), `${o.kind} ${String(get(o, "metadata.name"))}`);
    }
  }
  // The validation is real: a wrong type is caught.
  const deploy = docs(agentManifest(MANIFEST)).find((o) => o.kind === "Deployment")!;
  (get(deploy, "spec") as Record<string, unknown>).replicas = "one";
  assert.throws(() => new Deployment(deploy as never).validate(), /replicas/);
});

test("the token Secret carries the token; the state Secret is created empty; no volume holds either", () => {
  const objects = docs(agentManifest(MANIFEST));
  const [token, state] = objects.filter((o) => o.kind === "Secret");
  assert.equal(get(token, "stringData.token"), TOKEN);
  assert.equal(get(state, "data"), undefined);
  assert.equal(get(state, "stringData"), undefined);
  const pod = get(
    objects.find((o) => o.kind === "Deployment"),
    "spec.template.spec",
  ) as Record<string, unknown>;
  assert.deepEqual(
    (pod.volumes as { name: string }[]).map((v) => Object.keys(v).filter((k) => k !== "name")),
    [["emptyDir"]],
    "only a scratch /tmp: identity lives in the Secret, so a reschedule keeps it",
  );
});

test("the Deployment runs the agent with the CLI's flags: token and state in Secrets, its own Deployment, health port", () => {
  for (const allowNodeActions of [false, true]) {
    const deploy = docs(agentManifest({ ...MANIFEST, allowNodeActions })).find((o) => o.kind === "Deployment")!;
    assert.equal(get(deploy, "spec.replicas"), 1);
    assert.deepEqual(
      get(deploy, "spec.strategy"),
      { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      "the old agent stays until the new pod is Ready (the Lease keeps one writer)",
    );
    const container = get(deploy, "spec.template.spec.containers.0") as Record<string, unknown>;
    assert.equal(container.image, INSTALL.agentImage);
    const args = container.args as string[];
    const parsed = parseAgentArgs(args, { KUBERNETES_SERVICE_HOST: "10.96.0.1" });
    assert.equal(parsed.facts, "kubernetes");
    assert.equal(parsed.tokenSecret, "fleet-system/fleet-agent-token");
    assert.equal(parsed.stateSecret, "fleet-system/fleet-agent-state");
    assert.equal(parsed.deployment, "fleet-system/fleet-agent");
    assert.equal(parsed.allowNodeActions, allowNodeActions);
    assert.deepEqual(parsed.labels, INSTALL.labels);
    assert.equal(parsed.caFingerprint, FINGERPRINT);
    assert.ok(!args.join(" ").includes(TOKEN), "the token is never an argument (visible in ps and the pod spec)");
    assert.equal(get(container, "livenessProbe.httpGet.path"), "/healthz", "liveness: the process answers, nothing more");
    assert.equal(get(container, "readinessProbe.httpGet.path"), "/readyz");
    assert.equal(get(container, "ports.0.containerPort"), Number(args[args.indexOf("--health-port") + 1]));
  }
});

test("more system namespaces reach the agent's flags when given", () => {
  const deploy = docs(agentManifest({ ...MANIFEST, systemNamespaces: ["acme-platform-", "ops"] })).find(
    (o) => o.kind === "Deployment",
  )!;
  const args = get(deploy, "spec.template.spec.containers.0.args") as string[];
  assert.deepEqual(parseAgentArgs(args, { KUBERNETES_SERVICE_HOST: "10.96.0.1" }).systemNamespaces, ["acme-platform-", "ops"]);
  const plain = docs(agentManifest(MANIFEST)).find((o) => o.kind === "Deployment")!;
  assert.ok(!(get(plain, "spec.template.spec.containers.0.args") as string[]).includes("--system-namespaces"));
});

test("HTTPS_PROXY and NO_PROXY reach the agent when given", () => {
  const deploy = docs(agentManifest({ ...MANIFEST, httpsProxy: "http://proxy.corp:3128", noProxy: "10.0.0.0/8,.svc" })).find(
    (o) => o.kind === "Deployment",
  )!;
  assert.deepEqual(get(deploy, "spec.template.spec.containers.0.env"), [
    { name: "HTTPS_PROXY", value: "http://proxy.corp:3128" },
    { name: "NO_PROXY", value: "10.0.0.0/8,.svc" },
  ]);
  assert.equal(
    get(
      docs(agentManifest(MANIFEST)).find((o) => o.kind === "Deployment"),
      "spec.template.spec.containers.0.env",
    ),
    undefined,
  );
});

/** The Pod Security Standards' "restricted" profile, as the checks that apply to this pod. */
function restrictedViolations(pod: Record<string, unknown>): string[] {
  const out: string[] = [];
  const psc = (pod.securityContext ?? {}) as Record<string, unknown>;
  for (const key of ["hostNetwork", "hostPID", "hostIPC"]) if (pod[key]) out.push(key);
  const allowedVolumes = [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
  ];
  for (const v of (pod.volumes ?? []) as Record<string, unknown>[]) {
    for (const k of Object.keys(v)) if (k !== "name" && !allowedVolumes.includes(k)) out.push(`volume type ${k}`);
  }
  const containers = [
    ...((pod.containers ?? []) as Record<string, unknown>[]),
    ...((pod.initContainers ?? []) as Record<string, unknown>[]),
  ];
  for (const c of containers) {
    const sc = (c.securityContext ?? {}) as Record<string, unknown>;
    if (sc.privileged) out.push("privileged");
    if (sc.allowPrivilegeEscalation !== false) out.push("allowPrivilegeEscalation must be false");
    if (!(sc.runAsNonRoot === true || (sc.runAsNonRoot === undefined && psc.runAsNonRoot === true))) out.push("runAsNonRoot");
    if (sc.runAsUser === 0 || psc.runAsUser === 0) out.push("runAsUser 0");
    const seccomp = (sc.seccompProfile ?? psc.seccompProfile) as { type?: string } | undefined;
    if (seccomp?.type !== "RuntimeDefault" && seccomp?.type !== "Localhost") out.push("seccompProfile");
    const caps = (sc.capabilities ?? {}) as { drop?: string[]; add?: string[] };
    if (!caps.drop?.includes("ALL")) out.push("capabilities.drop ALL");
    for (const cap of caps.add ?? []) if (cap !== "NET_BIND_SERVICE") out.push(`capability ${cap}`);
    for (const port of (c.ports ?? []) as { hostPort?: number }[]) if (port.hostPort) out.push("hostPort");
  }
  return out;
}

test("the Deployment meets the Pod Security restricted profile, with requests, limits and a read-only root", () => {
  const pod = get(
    docs(agentManifest(MANIFEST)).find((o) => o.kind === "Deployment"),
    "spec.template.spec",
  ) as Record<string, unknown>;
  assert.deepEqual(restrictedViolations(pod), []);
  // The checker catches what it should.
  const bad = structuredClone(pod);
  const c0 = (bad.containers as Record<string, Record<string, unknown>>[])[0]!;
  c0.securityContext!.allowPrivilegeEscalation = true;
  bad.volumes = [{ name: "h", hostPath: { path: "/" } }];
  assert.deepEqual(restrictedViolations(bad), ["volume type hostPath", "allowPrivilegeEscalation must be false"]);
  const container = get(pod, "containers.0");
  assert.equal(get(container, "securityContext.readOnlyRootFilesystem"), true);
  assert.ok(get(container, "resources.limits.cpu") && get(container, "resources.limits.memory"));
  assert.ok(get(container, "resources.requests.cpu") && get(container, "resources.requests.memory"));
  const ns = docs(agentManifest(MANIFEST))[0]!;
  assert.equal((get(ns, "metadata.labels") as Record<string, string>)["pod-security.kubernetes.io/enforce"], "restricted");
});

test("the pod pins no user (OpenShift's restricted-v2 assigns one) and runs on Linux nodes", () => {
  const pod = get(
    docs(agentManifest(MANIFEST)).find((o) => o.kind === "Deployment"),
    "spec.template.spec",
  ) as Record<string, unknown>;
  for (const sc of [pod.securityContext, get(pod, "containers.0.securityContext")] as Record<string, unknown>[]) {
    assert.equal(sc.runAsUser, undefined);
    assert.equal(sc.runAsGroup, undefined);
  }
  assert.equal(get(pod, "securityContext.runAsNonRoot"), true, "the kubelet checks the image's numeric USER is not root");
  assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
  for (const key of ["priorityClassName", "imagePullSecrets", "tolerations"]) assert.equal(pod[key], undefined, key);
});

test("advanced options: priority class, pull secrets, tolerations and the API server URL reach the pod, validated", () => {
  const text = {
    apiServerUrl: " https://4A1B2C3D.gr7.eu-west-1.eks.amazonaws.com ",
    priorityClassName: "system-cluster-critical",
    imagePullSecrets: "regcred, mirror-creds regcred",
    tolerations: "dedicated=platform:NoSchedule, node-role.kubernetes.io/control-plane:NoSchedule, spot",
  };
  const { options, problems } = parseAgentPodOptions(text);
  assert.deepEqual(problems, {});
  const deploy = docs(agentManifest({ ...MANIFEST, ...options })).find((o) => o.kind === "Deployment")!;
  assert.doesNotThrow(() => new Deployment(deploy as never).validate());
  const pod = get(deploy, "spec.template.spec") as Record<string, unknown>;
  assert.equal(pod.priorityClassName, "system-cluster-critical");
  assert.deepEqual(pod.imagePullSecrets, [{ name: "regcred" }, { name: "mirror-creds" }]);
  assert.deepEqual(pod.tolerations, [
    { key: "dedicated", operator: "Equal", value: "platform", effect: "NoSchedule" },
    { key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" },
    { key: "spot", operator: "Exists" },
  ]);
  const args = get(pod, "containers.0.args") as string[];
  const parsed = parseAgentArgs(args, { KUBERNETES_SERVICE_HOST: "10.96.0.1" });
  assert.equal(parsed.apiServerUrlGiven, true);
  assert.equal(parsed.apiServerUrl, "https://4A1B2C3D.gr7.eu-west-1.eks.amazonaws.com");
  assert.ok(
    agentCommand({ ...INSTALL, ...options }).includes("--api-server-url https://4A1B2C3D.gr7.eu-west-1.eks.amazonaws.com"),
  );

  const bad = (field: keyof typeof EMPTY_POD_OPTIONS, value: string) =>
    parseAgentPodOptions({ ...EMPTY_POD_OPTIONS, [field]: value }).problems[field];
  assert.match(bad("apiServerUrl", "http://10.0.0.1:6443")!, /https:\/\/ URL/);
  assert.match(bad("apiServerUrl", "https://admin:pw@api.example")!, /without credentials/);
  assert.match(bad("priorityClassName", "High_Priority")!, /DNS subdomain/);
  assert.match(bad("imagePullSecrets", "regcred, Bad/Name")!, /Secret name "Bad\/Name"/);
  assert.match(bad("tolerations", "dedicated=platform:NoSchedul")!, /effect must be NoSchedule, PreferNoSchedule, NoExecute/);
  assert.match(bad("tolerations", "=x:NoSchedule")!, /needs a taint key/);
  assert.match(bad("tolerations", "dedicated=not a value")!, /value must/);
  assert.deepEqual(parseAgentPodOptions(EMPTY_POD_OPTIONS), { options: {}, problems: {} });
  // The generator refuses what the form refuses.
  assert.throws(() => agentManifest({ ...MANIFEST, priorityClassName: "Nope" }), /DNS subdomain/);
});

type Grant = string;
/** Every (verb, group, resource, name, namespace) the manifest grants, as strings. */
function granted(objects: Obj[]): Set<Grant> {
  const out = new Set<Grant>();
  for (const o of objects.filter((x) => x.kind === "ClusterRole" || x.kind === "Role")) {
    const where = o.kind === "Role" ? String(get(o, "metadata.namespace")) : "*";
    for (const r of o.rules as {
      apiGroups?: string[];
      resources?: string[];
      resourceNames?: string[];
      nonResourceURLs?: string[];
      verbs: string[];
    }[]) {
      for (const verb of r.verbs) {
        for (const url of r.nonResourceURLs ?? []) out.add(`${verb} ${url}`);
        for (const group of r.apiGroups ?? [])
          for (const resource of r.resources ?? [])
            for (const name of r.resourceNames ?? ["*"]) out.add(`${verb} ${group}/${resource}/${name} in ${where}`);
      }
    }
  }
  return out;
}

/** What each call of the agent needs, with the names and namespaces the manifest uses. */
function needed(nodeActions: boolean): Set<Grant> {
  const names: Record<string, string> = {
    stateSecret: AGENT_OBJECT_NAMES.stateSecret,
    tokenSecret: AGENT_OBJECT_NAMES.tokenSecret,
    ownDeployment: AGENT_OBJECT_NAMES.deployment,
    clusterInfo: "cluster-info",
    metricsApiService: "v1beta1.metrics.k8s.io",
    kubeSystemNamespace: "kube-system",
    agentLease: AGENT_OBJECT_NAMES.lease,
    ownRoleBinding: "fleet-agent",
    clusterInfoRoleBinding: "fleet-agent-cluster-info",
    clusterRoleBinding: "fleet-agent",
    nodeActionsClusterRoleBinding: "fleet-agent-node-actions",
  };
  const out = new Set<Grant>();
  for (const call of Object.values(KUBE_CALLS) as KubeCall[]) {
    if (call.kind === "nonResource") {
      out.add(`${call.verb} ${call.path}`);
      continue;
    }
    if (call.nodeActions && !nodeActions) continue;
    const where = call.scope === "cluster" ? "*" : call.scope === "own" ? AGENT_NAMESPACE : "kube-public";
    out.add(`${call.verb} ${call.group}/${call.resource}/${call.object ? names[call.object] : "*"} in ${where}`);
  }
  return out;
}

test("RBAC grants exactly the API calls the agent makes (KUBE_CALLS), nothing more, by name where it can", () => {
  for (const nodeActions of [false, true]) {
    const objects = docs(agentManifest({ ...MANIFEST, allowNodeActions: nodeActions }));
    assert.deepEqual([...granted(objects)].sort(), [...needed(nodeActions)].sort());
    // Every role is bound to the agent's ServiceAccount.
    for (const b of objects.filter((o) => o.kind.endsWith("Binding"))) {
      assert.deepEqual(get(b, "subjects"), [{ kind: "ServiceAccount", name: "fleet-agent", namespace: AGENT_NAMESPACE }]);
      assert.ok(objects.some((o) => o.kind === get(b, "roleRef.kind") && get(o, "metadata.name") === get(b, "roleRef.name")));
    }
  }
  const secrets = [...granted(docs(agentManifest(MANIFEST)))].filter((g) => g.includes("/secrets/"));
  assert.ok(
    secrets.every((g) => !g.includes("/secrets/*")),
    "Secrets only by name",
  );
  assert.ok(!secrets.some((g) => g.startsWith("create ") || g.startsWith("list ")), "no create or list on Secrets");
  const namespaceRules = (docs(agentManifest(MANIFEST)).find((o) => o.kind === "ClusterRole")!.rules as object[]).filter((r) =>
    JSON.stringify(r).includes('"namespaces"'),
  );
  assert.deepEqual(
    namespaceRules,
    [
      { apiGroups: [""], resources: ["namespaces"], verbs: ["list"] },
      { apiGroups: [""], resources: ["namespaces"], resourceNames: ["kube-system"], verbs: ["get"] },
    ],
    "namespaces: list (counted), and get only on kube-system (its UID is the cluster's identity)",
  );
  const leases = [...granted(docs(agentManifest(MANIFEST)))].filter((g) => g.includes("/leases/"));
  assert.deepEqual(
    leases.sort(),
    [
      "create coordination.k8s.io/leases/* in fleet-system",
      "get coordination.k8s.io/leases/fleet-agent in fleet-system",
      "update coordination.k8s.io/leases/fleet-agent in fleet-system",
    ],
    "the agent creates its Lease when missing (in its own namespace: RBAC cannot name what is created), and reads and renews only that one",
  );
  const bindings = [...granted(docs(agentManifest({ ...MANIFEST, allowNodeActions: true })))].filter((g) =>
    g.includes("bindings/"),
  );
  assert.deepEqual(
    bindings.sort(),
    [
      "delete rbac.authorization.k8s.io/clusterrolebindings/fleet-agent in *",
      "delete rbac.authorization.k8s.io/clusterrolebindings/fleet-agent-node-actions in *",
      "delete rbac.authorization.k8s.io/rolebindings/fleet-agent in fleet-system",
      "delete rbac.authorization.k8s.io/rolebindings/fleet-agent-cluster-info in kube-public",
    ],
    "the agent may delete its own bindings by name, nothing else about RBAC",
  );
});

test("the manifest's header says how to apply it, what the agent may change and how to remove it", () => {
  const text = agentManifest(MANIFEST);
  assert.match(text, /^# Fleet Registry agent for cluster "prod-eu-1"\./);
  assert.match(text, /kubectl apply -f fleet-agent-prod-eu-1\.yaml/);
  assert.match(text, /Node actions \(drainNodePool: cordon and evict\) are off/);
  assert.match(agentManifest({ ...MANIFEST, allowNodeActions: true }), /PodDisruptionBudgets/);
  assert.match(text, /kubectl delete namespace fleet-system/);
  assert.equal(manifestFileName("prod-eu-1"), "fleet-agent-prod-eu-1.yaml");
  assert.equal(manifestFileName(""), "fleet-agent-cluster.yaml");
});

test("agentImageFor: the configured image at the target version", () => {
  assert.equal(agentImageFor("registry.example.com/fleet/agent:1.4.0", "1.5.0"), "registry.example.com/fleet/agent:1.5.0");
  assert.equal(agentImageFor("registry.example.com:5000/agent", "1.5.0"), "registry.example.com:5000/agent:1.5.0");
  assert.equal(agentImageFor(`reg.example/agent@sha256:${"a".repeat(64)}`, "1.5.0"), "reg.example/agent:1.5.0");
});

test("labelsToSend: required labels the token does not fix, pre-filled from a value scope", () => {
  assert.deepEqual(labelsToSend({ requiredLabels: ["env", "region"], fixedLabels: { env: "prod" }, allowedLabels: null }), [
    { key: "region", value: "", choices: null },
  ]);
  assert.deepEqual(
    labelsToSend({
      requiredLabels: ["env", "region"],
      fixedLabels: {},
      allowedLabels: { env: ["staging", "prod"], region: "*" },
    }),
    [
      { key: "env", value: "staging", choices: ["staging", "prod"] },
      { key: "region", value: "", choices: null },
    ],
  );
});

test("unreachableRequiredLabels: a scoped token that neither fixes nor allows a required label", () => {
  const required = ["env", "region"];
  assert.deepEqual(unreachableRequiredLabels({ requiredLabels: required, fixedLabels: {}, allowedLabels: null }), []);
  assert.deepEqual(unreachableRequiredLabels({ requiredLabels: required, fixedLabels: {}, allowedLabels: { env: "*" } }), [
    "region",
  ]);
  assert.deepEqual(
    unreachableRequiredLabels({ requiredLabels: required, fixedLabels: { region: "eu" }, allowedLabels: { env: ["prod"] } }),
    [],
  );
});

test("isLoopbackUrl spots agent URLs a cluster could not reach", () => {
  assert.equal(isLoopbackUrl("https://localhost:8443"), true);
  assert.equal(isLoopbackUrl("https://127.0.0.1:8443"), true);
  assert.equal(isLoopbackUrl("https://[::1]:8443"), true);
  assert.equal(isLoopbackUrl("https://fleet.example.com:8443"), false);
  assert.equal(isLoopbackUrl("not a url"), false);
});

test("the server address a manifest starts from: the first AGENT_HOSTNAMES entry a pod can reach", () => {
  assert.equal(agentUrlFor("fleet.example.com", 8443), "https://fleet.example.com:8443");
  assert.equal(agentUrlFor("fd00::1", 8443), "https://[fd00::1]:8443");
  const urls = ["localhost", "127.0.0.1", "::1", "10.0.0.5", "fleet.example.com"].map((h) => agentUrlFor(h, 8443));
  assert.equal(defaultAgentUrl(urls, urls[0]!), "https://10.0.0.5:8443");
  assert.equal(defaultAgentUrl(urls.slice(0, 3), urls[0]!), "https://localhost:8443", "none reachable: the first, refused below");
});

test("a server address a pod cannot reach is refused with the reason", () => {
  for (const ok of [
    "https://fleet.example.com:8443",
    "https://10.0.0.5:8443",
    "https://[fd00::1]:8443",
    "https://fleet.example.com",
  ])
    assert.equal(serverAddressProblem(ok), null, ok);
  for (const loop of ["https://localhost:8443", "https://127.0.0.1:8443", "https://127.1.2.3:1", "https://[::1]:8443"])
    assert.match(serverAddressProblem(loop) ?? "", /loopback: inside a pod it is the pod itself/, loop);
  assert.match(serverAddressProblem("") ?? "", /^Enter the address/);
  assert.match(serverAddressProblem("fleet.example.com") ?? "", /not a URL/);
  assert.match(serverAddressProblem("http://fleet.example.com:8443") ?? "", /TLS only/);
  assert.match(serverAddressProblem("https://u:p@fleet.example.com") ?? "", /no user name/);
  assert.match(serverAddressProblem("https://fleet.example.com/api") ?? "", /Only the scheme, host and port/);
  assert.equal(proxyUrlProblem("http://proxy.internal:3128"), null);
  assert.match(proxyUrlProblem("socks5://proxy:1080") ?? "", /http:\/\/ or https:\/\//);
});

test("what keeps a manifest from being handed out, in the page's order", () => {
  assert.deepEqual(manifestBlockers({ nameProblem: null, labelProblems: [], serverProblem: null, optionProblems: [] }), []);
  assert.deepEqual(
    manifestBlockers({
      nameProblem: "x",
      labelProblems: ["env", "region"],
      serverProblem: "loopback",
      optionProblems: ["toleration"],
    }),
    ["a valid cluster name", "the required labels env, region", "a server address a pod can reach", "a valid toleration"],
  );
  assert.deepEqual(manifestBlockers({ nameProblem: null, labelProblems: ["env"], serverProblem: null, optionProblems: [] }), [
    "the required label env",
  ]);
});
