import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseAgentArgs, parseLabels, UsageError, wantsHelp } from "@/lib/agent/args";
import { parseFaults, parseSimulateArgs } from "@/lib/agent/simulator/simulate-args";
import { AGENT_VERSION } from "@/lib/agent/version";

const HEX = "ab".repeat(32);
const base = ["--server", "https://127.0.0.1:8443", "--name", "prod-eu-1", "--state-dir", "/tmp/s"];

describe("agent command line", () => {
  test("facts: real when a kubeconfig or a pod's service account is there, else simulated; --facts decides", () => {
    const minimal = ["--server", "https://127.0.0.1:8443", "--name", "prod-eu-1"];
    assert.equal(parseAgentArgs(base).facts, "simulated");
    assert.equal(parseAgentArgs(base, { KUBERNETES_SERVICE_HOST: "10.96.0.1" }).facts, "kubernetes");
    const laptop = parseAgentArgs(base, { KUBECONFIG: "/home/me/.kube/config" });
    assert.deepEqual([laptop.facts, laptop.kubeconfig], ["kubernetes", "/home/me/.kube/config"]);
    assert.equal(parseAgentArgs([...base, "--facts", "simulated"], { KUBECONFIG: "/k" }).kubeconfig, undefined);
    const pod = parseAgentArgs(
      [
        ...minimal,
        "--state-secret",
        "fleet-system/fleet-agent-state",
        "--token-secret",
        "fleet-system/fleet-agent-token",
        "--deployment",
        "fleet-system/fleet-agent",
        "--allow-node-actions",
      ],
      { KUBERNETES_SERVICE_HOST: "10.96.0.1" },
    );
    assert.deepEqual(
      [pod.stateDir, pod.stateSecret, pod.tokenSecret, pod.deployment, pod.allowNodeActions, pod.apiServerUrlGiven],
      [undefined, "fleet-system/fleet-agent-state", "fleet-system/fleet-agent-token", "fleet-system/fleet-agent", true, false],
    );
    assert.equal(parseAgentArgs(base).allowNodeActions, false);
    assert.deepEqual(parseAgentArgs([...base, "--system-namespaces", "acme-platform-, ops"]).systemNamespaces, [
      "acme-platform-",
      "ops",
    ]);
    assert.deepEqual(parseAgentArgs(base).systemNamespaces, []);
    assert.equal(parseAgentArgs([...base, "--drain-timeout", "900"]).drainTimeoutSeconds, 900);
    assert.equal(parseAgentArgs(base).drainTimeoutSeconds, 3_600);
    for (const [argv, message] of [
      [[...minimal, "--state-secret", "no-namespace"], /namespace\/name/],
      [[...base, "--state-secret", "a/b"], /either --state-dir or --state-secret/],
      [[...base, "--facts", "real"], /kubernetes or simulated/],
      [[...base, "--system-namespaces", "Acme/x"], /not a namespace name or a prefix/],
      [[...base, "--drain-timeout", "0"], /--drain-timeout must be a positive integer/],
      [[...minimal, "--state-secret", "a/b", "--facts", "simulated"], /need the cluster's API/],
      [[...base, "--token-file", "t", "--token-secret", "a/b"], /either --token-file or --token-secret/],
    ] as const) {
      assert.throws(
        () => parseAgentArgs([...argv]),
        (err: unknown) => err instanceof UsageError && message.test(err.message),
        argv.join(" "),
      );
    }
  });

  test("all flags", () => {
    const a = parseAgentArgs([
      ...base,
      "--token-file",
      "/run/token",
      "--labels",
      "env=prod, region=eu-west-1,example.com/team=payments",
      "--ca-fingerprint",
      `SHA256:${HEX.toUpperCase()}`,
      "--cluster-ca-file",
      "/etc/k8s/ca.crt",
      "--api-server-url",
      "https://api.prod-eu-1.example:6443",
      "--agent-version",
      "1.5.0-rc.1",
      "--kubernetes-version",
      "v1.31.4",
      "--heartbeat-interval",
      "2.5",
      "--timeout",
      "5",
      "--log-level",
      "debug",
    ]);
    assert.equal(a.server.href, "https://127.0.0.1:8443/");
    assert.equal(a.tokenFile, "/run/token");
    assert.deepEqual(a.labels, { env: "prod", region: "eu-west-1", "example.com/team": "payments" });
    assert.equal(a.caFingerprint, `sha256:${HEX}`);
    assert.equal(a.caFile, undefined);
    assert.equal(a.clusterCaFile, "/etc/k8s/ca.crt");
    assert.equal(a.apiServerUrl, "https://api.prod-eu-1.example:6443");
    assert.equal(a.agentVersion, "1.5.0-rc.1");
    assert.equal(a.kubernetesVersion, "1.31.4", "leading v dropped");
    assert.equal(a.heartbeatIntervalSeconds, 2.5);
    assert.equal(a.timeoutSeconds, 5);
    assert.equal(a.logLevel, "debug");
  });

  test("defaults", () => {
    const a = parseAgentArgs([...base, "--ca-file", "/ca.pem"]);
    assert.equal(a.apiServerUrl, "https://kubernetes.default.svc:443");
    assert.equal(a.agentVersion, AGENT_VERSION, "this build's");
    assert.equal(a.kubernetesVersion, "1.30.2");
    assert.equal(a.heartbeatIntervalSeconds, undefined);
    assert.equal(a.timeoutSeconds, 15);
    assert.equal(a.logLevel, "info");
    assert.deepEqual(a.labels, {});
    assert.equal(a.caFile, "/ca.pem");
  });

  const bad: Array<[string, string[], RegExp]> = [
    ["missing --server", ["--name", "a", "--state-dir", "/s"], /--server is required/],
    ["http server", ["--server", "http://127.0.0.1:8443", "--name", "a", "--state-dir", "/s"], /https:\/\//],
    ["server with credentials", ["--server", "https://u:p@h:1", "--name", "a", "--state-dir", "/s"], /credentials/],
    ["missing --name", ["--server", "https://h", "--state-dir", "/s"], /--name is required/],
    ["bad name", ["--server", "https://h", "--name", "Prod_EU", "--state-dir", "/s"], /DNS-1123/],
    ["missing --state-dir", ["--server", "https://h", "--name", "a"], /--state-dir or --state-secret is required/],
    [
      "both trust flags",
      [...base, "--ca-file", "x", "--ca-fingerprint", `sha256:${HEX}`],
      /either --ca-file or --ca-fingerprint/,
    ],
    ["short fingerprint", [...base, "--ca-fingerprint", "sha256:abcd"], /64 hex digits/],
    ["bad label", [...base, "--labels", "env"], /not key=value/],
    ["bad label value", [...base, "--labels", "env=-prod"], /value of "env"/],
    ["duplicate label", [...base, "--labels", "env=a,env=b"], /given twice/],
    ["bad version", [...base, "--agent-version", "1.4"], /semantic version/],
    ["bad interval", [...base, "--heartbeat-interval", "0"], /positive number/],
    ["bad log level", [...base, "--log-level", "loud"], /debug, info, warn or error/],
    ["unknown flag", [...base, "--tokenfile", "x"], /Unknown option/],
    ["positional", [...base, "extra"], /positional/i],
    ["http api server url", [...base, "--api-server-url", "http://x"], /--api-server-url must be an https/],
    [
      "a made-up agent version for a real cluster",
      [...base, "--facts", "kubernetes", "--agent-version", "1.4.0"],
      /simulated facts only/,
    ],
    [
      "a made-up Kubernetes version for a real cluster",
      [...base, "--facts", "kubernetes", "--kubernetes-version", "1.30.2"],
      /simulated facts only/,
    ],
  ];
  for (const [what, argv, message] of bad) {
    test(`rejects ${what}`, () => {
      assert.throws(
        () => parseAgentArgs(argv),
        (err: unknown) => err instanceof UsageError && message.test(err.message),
      );
    });
  }

  test("--help anywhere", () => {
    assert.equal(wantsHelp(["--name", "x", "--help"]), true);
    assert.equal(wantsHelp(["-h"]), true);
    assert.equal(wantsHelp(base), false);
  });

  test("labels: empty values allowed, whitespace trimmed, empty items skipped", () => {
    assert.deepEqual(parseLabels("a=,b=c,,"), { a: "", b: "c" });
    assert.deepEqual(parseLabels(undefined), {});
  });
});

describe("--cluster-uid", () => {
  const simulated = ["--server", "https://127.0.0.1:8443", "--name", "a", "--state-dir", "/s", "--ca-file", "/ca.pem"];

  test("a simulated cluster's UID, lowercased; refused with real facts or in a shape the protocol refuses", () => {
    assert.equal(parseAgentArgs(simulated).clusterUid, undefined, "default: derived from --name by the simulated cluster");
    assert.equal(
      parseAgentArgs([...simulated, "--cluster-uid", "3F1C2A9E-5B7D-4C1E-8A2B-6D9E0F1A2B3C"]).clusterUid,
      "3f1c2a9e-5b7d-4c1e-8a2b-6d9e0f1a2b3c",
    );
    assert.throws(() => parseAgentArgs([...simulated, "--cluster-uid", "not a uid"]), /must be a Kubernetes UID/);
    assert.throws(
      () => parseAgentArgs([...simulated, "--facts", "kubernetes", "--cluster-uid", "abc"]),
      /--cluster-uid is for simulated facts only/,
    );
  });
});

describe("simulator command line", () => {
  const sim = ["--server", "https://127.0.0.1:8443", "--clusters", "500", "--token", "frt_x_y", "--ca-file", "/ca.pem"];

  test("defaults and flags", () => {
    const a = parseSimulateArgs(sim);
    assert.equal(a.clusters, 500);
    assert.equal(a.intervalSeconds, 15);
    assert.equal(a.concurrency, 16);
    assert.equal(a.prefix, "sim");
    assert.equal(a.keyPool, 16);
    assert.equal(a.seed, 1);
    assert.equal(a.durationSeconds, undefined);
    assert.deepEqual(a.faults, { stop: 0, flap: 0, degraded: 0, late: 0 });
    const b = parseSimulateArgs([
      ...sim,
      "--interval",
      "2",
      "--concurrency",
      "64",
      "--faults",
      "stop=0.05,flap=0.1,degraded=0.05,late=0.05",
      "--duration",
      "30",
      "--prefix",
      "load",
      "--key-pool",
      "8",
      "--seed",
      "42",
      "--state-dir",
      "/tmp/sim",
    ]);
    assert.equal(b.intervalSeconds, 2);
    assert.equal(b.concurrency, 64);
    assert.deepEqual(b.faults, { stop: 0.05, flap: 0.1, degraded: 0.05, late: 0.05 });
    assert.equal(b.durationSeconds, 30);
    assert.equal(b.prefix, "load");
    assert.equal(b.keyPool, 8);
    assert.equal(b.seed, 42);
    assert.equal(b.stateDir, "/tmp/sim");
    assert.equal(a.duplicateUids, 0);
    assert.equal(parseSimulateArgs([...sim, "--duplicate-uids", "3"]).duplicateUids, 3);
  });

  test("rejects what cannot run", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--server", "https://h", "--token", "t", "--ca-file", "c"], /--clusters is required/],
      [["--server", "https://h", "--clusters", "1.5", "--token", "t", "--ca-file", "c"], /positive integer/],
      [["--server", "https://h", "--clusters", "2", "--ca-file", "c"], /--token or --token-file/],
      [
        ["--server", "https://h", "--clusters", "2", "--token", "t", "--token-file", "f", "--ca-file", "c"],
        /either --token or --token-file/,
      ],
      [["--server", "https://h", "--clusters", "2", "--token", "t"], /--ca-file or --ca-fingerprint is required/],
      [[...sim, "--prefix", "Sim"], /DNS-1123/],
      [[...sim, "--faults", "stop=2"], /between 0 and 1/],
      [[...sim, "--faults", "crash=0.1"], /must be one of/],
      [[...sim, "--faults", "stop=0.6,flap=0.6"], /more than 1/],
      [[...sim, "--duplicate-uids", "1.5"], /--duplicate-uids must be an integer/],
    ];
    for (const [argv, message] of cases) {
      assert.throws(
        () => parseSimulateArgs(argv),
        (err: unknown) => err instanceof UsageError && message.test(err.message),
        argv.join(" "),
      );
    }
  });

  test("fault shares", () => {
    assert.deepEqual(parseFaults("late=0.5"), { stop: 0, flap: 0, degraded: 0, late: 0.5 });
    assert.throws(() => parseFaults("stop="), UsageError);
  });
});
