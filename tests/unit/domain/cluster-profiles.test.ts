// A cluster as a SIG-Multicluster ClusterProfile (lib/domain/cluster-profiles.ts): the shape the
// CRD accepts (checked with the contract's schema, which restates its OpenAPI constraints), the
// conditions from heartbeat health and registration, properties from labels and facts, and
// nothing secret. Also the hub kubeconfig check (lib/domain/kubeconfig.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clusterProfileSchema } from "@/lib/contracts/cluster-profiles";
import { clusterProfile, type ProfileFacts } from "@/lib/domain/cluster-profiles";
import { checkHubKubeconfig } from "@/lib/domain/kubeconfig";

const now = new Date("2026-12-01T12:00:00.000Z");
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const ctx = { now, notReadyThresholdSeconds: 60 };

function facts(over: Partial<ProfileFacts> = {}): ProfileFacts {
  return {
    id: "c_123",
    name: "prod-eu-1",
    labels: { env: "prod", region: "eu-west-1", "example.com/team": "payments" },
    phase: "Active",
    lastHeartbeatAt: ago(5),
    apiServerHealth: "ok",
    createdAt: ago(86_400),
    registeredAt: ago(80_000),
    phaseChangedAt: ago(70_000),
    statusChangedAt: ago(3_600),
    kubernetesVersion: "v1.31.2",
    agentVersion: "1.4.0",
    apiServerUrl: "https://10.0.0.1:6443",
    nodeCount: 12,
    ...over,
  };
}

const condition = (f: ProfileFacts, type: string) => clusterProfile(f, ctx).status.conditions.find((c) => c.type === type)!;

describe("clusterProfile", () => {
  test("a Ready cluster: the standard's shape, the cluster-manager label and spec, version and properties", () => {
    const p = clusterProfile(facts(), { ...ctx, namespace: "fleet" });
    clusterProfileSchema.parse(p);
    assert.equal(p.apiVersion, "multicluster.x-k8s.io/v1alpha1");
    assert.equal(p.kind, "ClusterProfile");
    assert.deepEqual(p.metadata, {
      name: "prod-eu-1",
      namespace: "fleet",
      labels: { env: "prod", "example.com/team": "payments", region: "eu-west-1", "x-k8s.io/cluster-manager": "fleet-registry" },
      annotations: { "fleet-registry.io/cluster-id": "c_123" },
    });
    assert.deepEqual(p.spec, { displayName: "prod-eu-1", clusterManager: { name: "fleet-registry" } });
    assert.deepEqual(p.status.version, { kubernetes: "v1.31.2" });
    assert.deepEqual(p.status.conditions, [
      {
        type: "ControlPlaneHealthy",
        status: "True",
        reason: "AgentReportsHealthy",
        message: "Heartbeats arrive and the API server is up.",
        lastTransitionTime: ago(3_600).toISOString(),
      },
      {
        type: "Joined",
        status: "True",
        reason: "Registered",
        message: "An agent registered the cluster.",
        lastTransitionTime: ago(80_000).toISOString(),
      },
    ]);
    assert.deepEqual(p.status.properties, [
      { name: "env", value: "prod" },
      { name: "example.com/team", value: "payments" },
      { name: "fleet-registry.io/agent-version", value: "1.4.0" },
      { name: "fleet-registry.io/api-server-url", value: "https://10.0.0.1:6443" },
      { name: "fleet-registry.io/node-count", value: "12" },
      { name: "fleet-registry.io/phase", value: "Active" },
      { name: "fleet-registry.io/status", value: "Ready" },
      { name: "region", value: "eu-west-1" },
    ]);
  });

  test("ControlPlaneHealthy: stale is Unknown from when the threshold passed, apiServer down is False, degraded is True", () => {
    const stale = condition(facts({ lastHeartbeatAt: ago(61) }), "ControlPlaneHealthy");
    assert.equal(stale.status, "Unknown");
    assert.equal(stale.reason, "HeartbeatStale");
    assert.equal(stale.lastTransitionTime, ago(1).toISOString());
    const down = condition(facts({ apiServerHealth: "down" }), "ControlPlaneHealthy");
    assert.deepEqual([down.status, down.reason], ["False", "APIServerDown"]);
    // Down but silent: we cannot know what the control plane does now.
    assert.equal(
      condition(facts({ apiServerHealth: "down", lastHeartbeatAt: ago(600) }), "ControlPlaneHealthy").status,
      "Unknown",
    );
    const degraded = condition(facts({ apiServerHealth: "degraded" }), "ControlPlaneHealthy");
    assert.deepEqual([degraded.status, degraded.reason], ["True", "APIServerDegraded"]);
    // The threshold is the fleet's setting, not a constant.
    const lenient = clusterProfile(facts({ lastHeartbeatAt: ago(61) }), { ...ctx, notReadyThresholdSeconds: 120 });
    assert.equal(lenient.status.conditions[0]!.status, "True");
  });

  test("Pending and Provisioning: ControlPlaneHealthy Unknown, Joined only once registered; Deregistration leaves", () => {
    const pending = facts({ lastHeartbeatAt: null, apiServerHealth: null, phase: "Registration" });
    assert.deepEqual(
      [condition(pending, "ControlPlaneHealthy").status, condition(pending, "ControlPlaneHealthy").reason],
      ["Unknown", "NoHeartbeatYet"],
    );
    assert.equal(condition(pending, "Joined").status, "True");
    const provisioned = facts({ lastHeartbeatAt: null, registeredAt: null, phase: "Provisioning", kubernetesVersion: null });
    const p = clusterProfile(provisioned, ctx);
    clusterProfileSchema.parse(p);
    assert.deepEqual([p.status.conditions[1]!.status, p.status.conditions[1]!.reason], ["False", "AwaitingRegistration"]);
    assert.equal(p.status.conditions[1]!.lastTransitionTime, ago(86_400).toISOString());
    assert.deepEqual(p.status.version, {});
    assert.equal(p.status.properties.find((x) => x.name === "fleet-registry.io/status")?.value, "Provisioning");
    const leaving = condition(facts({ phase: "Deregistration" }), "Joined");
    assert.deepEqual(
      [leaving.status, leaving.reason, leaving.lastTransitionTime],
      ["False", "Deregistering", ago(70_000).toISOString()],
    );
  });

  test("labels: empty values stay labels but are no properties; our prefix and the manager label cannot be spoofed", () => {
    const p = clusterProfile(
      facts({
        labels: { tier: "", "fleet-registry.io/phase": "Fake", "x-k8s.io/cluster-manager": "someone-else" },
        agentVersion: null,
        apiServerUrl: null,
        nodeCount: null,
      }),
      ctx,
    );
    clusterProfileSchema.parse(p);
    assert.equal(p.metadata.labels["x-k8s.io/cluster-manager"], "fleet-registry");
    assert.equal(p.metadata.labels.tier, "");
    assert.deepEqual(
      p.status.properties.map((x) => `${x.name}=${x.value}`),
      ["fleet-registry.io/phase=Active", "fleet-registry.io/status=Ready"],
    );
  });

  test("no secrets and no heartbeat times: the same cluster a heartbeat later maps to the same profile", () => {
    const a = clusterProfile(facts(), ctx);
    const b = clusterProfile(facts({ lastHeartbeatAt: ago(1) }), ctx);
    assert.deepEqual(a, b);
    const text = JSON.stringify(a);
    assert.doesNotMatch(text, /BEGIN|token|fingerprint|sha256/i);
    assert.ok(!text.includes(ago(5).toISOString()), "no heartbeat time");
  });
});

describe("checkHubKubeconfig", () => {
  const config = (server: string, extra = "", user = "    token: abc") =>
    `apiVersion: v1\nkind: Config\nclusters:\n- name: hub\n  cluster:\n    server: ${server}\nusers:\n- name: admin\n  user:\n${user}\ncontexts:\n- name: hub\n  context:\n    cluster: hub\n    user: admin\ncurrent-context: hub\n${extra}`;
  const problem = (text: string) => {
    const s = checkHubKubeconfig(text);
    assert.equal(s.ok, false);
    return s.ok ? "" : s.problem;
  };

  test("takes the current context's https server and its inline credentials, nothing else", () => {
    const pem = Buffer.from("-----BEGIN CERTIFICATE-----").toString("base64");
    const text = config(
      "https://hub.example.com:6443/",
      "preferences: {}\n",
      ["    client-certificate-data: " + pem, "    client-key-data: " + pem, "    token: abc"].join("\n"),
    ).replace("    server:", `    certificate-authority-data: ${pem}\n    tls-server-name: api.hub\n    server:`);
    assert.deepEqual(checkHubKubeconfig(text), {
      ok: true,
      server: "https://hub.example.com:6443",
      context: "hub",
      cluster: { caData: pem, tlsServerName: "api.hub" },
      user: { token: "abc", certData: pem, keyData: pem },
    });
  });

  test("refuses what the exporter could not use, saying why", () => {
    assert.match(problem("{"), /not YAML/);
    assert.match(problem("- a\n- b"), /not a kubeconfig/);
    assert.match(problem(config("http://hub:6443")), /not https/);
    assert.match(problem(config("https://root:pw@hub:6443")), /user name or password/);
    assert.match(
      problem(config("https://hub:6443").replace("current-context: hub", "current-context: other")),
      /no context named "other"/,
    );
    assert.match(problem(config("https://hub:6443").replace("- name: admin", "- name: someone")), /no user named "admin"/);
    assert.match(problem(config("https://hub:6443").replace("current-context: hub", "")), /no current-context/);
    assert.match(
      problem(config("https://hub:6443", "", "    client-certificate-data: abc")),
      /only one of client-certificate-data/,
    );
  });

  test("refuses every field that runs a program, reads a file, skips the certificate check or goes through a proxy, by name", () => {
    const userField = (yaml: string) => problem(config("https://hub:6443", "", yaml));
    const clusterField = (yaml: string) => problem(config("https://hub:6443").replace("    server:", `${yaml}\n    server:`));
    const cases: [string, string, RegExp][] = [
      [
        userField("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      args: [-c, id]"),
        "users[0].user.exec",
        /runs a program/,
      ],
      [userField("    auth-provider:\n      name: oidc\n      config: {}"), "users[0].user.auth-provider", /runs a program/],
      [userField("    tokenFile: /data/auth-secret"), "users[0].user.tokenFile", /reads a file/],
      [userField("    token-file: /data/auth-secret"), "users[0].user.token-file", /reads a file/],
      [
        userField("    client-certificate: /etc/tls.crt\n    client-key-data: abc"),
        "users[0].user.client-certificate",
        /reads a file/,
      ],
      [userField("    client-key: /etc/tls.key"), "users[0].user.client-key", /reads a file/],
      [userField("    username: admin\n    password: pw"), "users[0].user.username", /basic authentication/],
      [userField("    as: system:admin"), "users[0].user.as", /impersonation/],
      [clusterField("    certificate-authority: /etc/ca.crt"), "clusters[0].cluster.certificate-authority", /reads a file/],
      [clusterField("    insecure-skip-tls-verify: true"), "clusters[0].cluster.insecure-skip-tls-verify", /certificate/],
      [clusterField("    proxy-url: http://10.0.0.1:3128"), "clusters[0].cluster.proxy-url", /another host/],
      [clusterField("    something-new: x"), "clusters[0].cluster.something-new", /not a field the exporter takes/],
    ];
    for (const [message, field, why] of cases) {
      assert.ok(message.includes(`may not set ${field} (`), `${field}: ${message}`);
      assert.match(message, why);
      assert.match(message, /only an https server and inline credentials are accepted/);
    }
    // Not only the current context's entries: whatever the file holds is sealed and stored.
    const other = config("https://hub:6443").replace(
      "users:\n",
      "users:\n- name: laptop\n  user:\n    exec:\n      command: gcloud\n",
    );
    assert.match(problem(other), /may not set users\[0\]\.user\.exec/);
  });
});
