// The agent command and Kubernetes manifest the console hands out after minting: flags that the
// agent CLI accepts, a manifest that parses as YAML and runs the agent safely.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { parseAgentArgs } from "../../lib/agent/args";
import {
  AGENT_NAMESPACE,
  agentCommand,
  agentManifest,
  isLoopbackUrl,
  labelsToSend,
  manifestFileName,
  shellQuote,
  STATE_DIR,
  TOKEN_MOUNT_DIR,
  toYaml,
  unreachableRequiredLabels,
  type AgentInstall,
} from "../../lib/domain/agent-manifest";

// js-yaml comes with ESLint (a dev dependency); the test only uses it to read the manifest back.
const yaml = createRequire(import.meta.url)("js-yaml") as { loadAll(text: string): unknown[] };

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
    `npm run agent -- --server https://fleet.example.com:8443 --token-file token.txt --name prod-eu-1 --labels env=prod,region=eu-west-1 --state-dir ./agent-state --ca-fingerprint ${FINGERPRINT}`,
  );
  const argv = shellSplit(cmd).slice(4);
  const parsed = parseAgentArgs(argv);
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

test("toYaml writes kubectl-style block YAML and quotes anything ambiguous", () => {
  const text = toYaml({
    a: "plain",
    b: "yes",
    c: "1.30",
    d: "sha256:ab",
    e: 3,
    f: true,
    g: [],
    h: {},
    list: [{ name: "x", items: ["--flag", "v"] }, "s"],
  });
  assert.equal(
    text,
    [
      "a: plain",
      'b: "yes"',
      'c: "1.30"',
      'd: "sha256:ab"',
      "e: 3",
      "f: true",
      "g: []",
      "h: {}",
      "list:",
      "  - name: x",
      "    items:",
      '      - "--flag"',
      "      - v",
      "  - s",
      "",
    ].join("\n"),
  );
  const [back] = yaml.loadAll(text);
  assert.deepEqual(back, {
    a: "plain",
    b: "yes",
    c: "1.30",
    d: "sha256:ab",
    e: 3,
    f: true,
    g: [],
    h: {},
    list: [{ name: "x", items: ["--flag", "v"] }, "s"],
  });
});

test("the manifest: Namespace, ServiceAccount, Secret with the token, PVC and a Deployment, all in fleet-system", () => {
  const objects = docs(agentManifest({ ...INSTALL, token: TOKEN }));
  assert.deepEqual(
    objects.map((o) => o.kind),
    ["Namespace", "ServiceAccount", "Secret", "PersistentVolumeClaim", "Deployment"],
  );
  assert.equal(get(objects[0], "metadata.name"), AGENT_NAMESPACE);
  for (const o of objects.slice(1)) assert.equal(get(o, "metadata.namespace"), AGENT_NAMESPACE, o.kind);
  const secret = objects.find((o) => o.kind === "Secret")!;
  assert.equal(get(secret, "stringData.token"), TOKEN);
  assert.equal(
    get(
      objects.find((o) => o.kind === "PersistentVolumeClaim"),
      "spec.accessModes.0",
    ),
    "ReadWriteOnce",
  );
});

test("the Deployment runs the agent with the CLI's flags, the token from the Secret as a file, state on the claim", () => {
  const deploy = docs(agentManifest({ ...INSTALL, token: TOKEN })).find((o) => o.kind === "Deployment")!;
  assert.equal(get(deploy, "spec.replicas"), 1);
  assert.equal(get(deploy, "spec.strategy.type"), "Recreate", "an RWO claim is never shared by two pods");
  const pod = get(deploy, "spec.template.spec") as Record<string, unknown>;
  const container = get(pod, "containers.0") as Record<string, unknown>;
  assert.equal(container.image, INSTALL.agentImage);

  const args = container.args as string[];
  const parsed = parseAgentArgs(args);
  assert.equal(parsed.tokenFile, `${TOKEN_MOUNT_DIR}/token`);
  assert.equal(parsed.stateDir, STATE_DIR);
  assert.deepEqual(parsed.labels, INSTALL.labels);
  assert.equal(parsed.caFingerprint, FINGERPRINT);
  assert.ok(!args.join(" ").includes(TOKEN), "the token is never an argument (visible in ps and the pod spec)");

  const mounts = container.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[];
  const volumes = pod.volumes as Record<string, unknown>[];
  const tokenMount = mounts.find((m) => m.mountPath === TOKEN_MOUNT_DIR)!;
  assert.equal(tokenMount.readOnly, true);
  const tokenVolume = volumes.find((v) => v.name === tokenMount.name)!;
  assert.equal(get(tokenVolume, "secret.secretName"), "fleet-agent-token");
  assert.equal(get(tokenVolume, "secret.optional"), true, "deleting the spent Secret must not block restarts");
  const stateMount = mounts.find((m) => STATE_DIR.startsWith(m.mountPath + "/"))!;
  assert.equal(
    get(
      volumes.find((v) => v.name === stateMount.name),
      "persistentVolumeClaim.claimName",
    ),
    "fleet-agent-state",
  );
});

test("the agent runs as non-root with limits, no privilege escalation and a read-only root filesystem", () => {
  const deploy = docs(agentManifest({ ...INSTALL, token: TOKEN })).find((o) => o.kind === "Deployment")!;
  const pod = get(deploy, "spec.template.spec");
  assert.equal(get(pod, "securityContext.runAsNonRoot"), true);
  assert.ok(Number(get(pod, "securityContext.runAsUser")) > 0);
  assert.equal(get(pod, "securityContext.fsGroup"), get(pod, "securityContext.runAsUser"));
  const container = get(pod, "containers.0");
  assert.equal(get(container, "securityContext.allowPrivilegeEscalation"), false);
  assert.equal(get(container, "securityContext.readOnlyRootFilesystem"), true);
  assert.deepEqual(get(container, "securityContext.capabilities.drop"), ["ALL"]);
  assert.ok(get(container, "resources.limits.cpu") && get(container, "resources.limits.memory"));
  assert.ok(get(container, "resources.requests.cpu") && get(container, "resources.requests.memory"));
});

test("the manifest's header says how to apply it and to delete the spent Secret", () => {
  const text = agentManifest({ ...INSTALL, token: TOKEN });
  assert.match(text, /^# Fleet Registry agent for cluster "prod-eu-1"\./);
  assert.match(text, /kubectl apply -f fleet-agent-prod-eu-1\.yaml/);
  assert.match(text, /kubectl -n fleet-system delete secret fleet-agent-token/);
  assert.equal(manifestFileName("prod-eu-1"), "fleet-agent-prod-eu-1.yaml");
  assert.equal(manifestFileName(""), "fleet-agent-cluster.yaml");
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
