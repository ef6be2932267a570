// deploy/agent, the agent's kustomize base, rendered by `kubectl kustomize` (kustomize v5, on these
// machines and in CI) into exactly the objects the console's manifest holds for the same options.
// That deploy/agent is up to date is tests/unit/deploy/agent-kustomize.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import YAML from "yaml";
import {
  AGENT_COMPONENTS,
  agentSettings,
  EXAMPLE_INSTALL,
  withoutInstallAnnotation,
  tokenSecretGenerator,
  type AgentComponent,
} from "@/lib/domain/agent-kustomize";
import { agentManifestObjects, type ManifestInstall, type ManifestObject } from "@/lib/domain/agent-manifest";

const ROOT = path.join(process.cwd(), "deploy/agent");

type Obj = ManifestObject & { data?: Record<string, string>; stringData?: Record<string, string> };

/** Objects by kind/namespace/name; a Secret's stringData as the data the API server stores. */
function byKey(objects: Obj[]): Map<string, Obj> {
  return new Map(
    objects.map((o) => {
      const copy: Obj = structuredClone(o);
      if (copy.stringData) {
        copy.data = Object.fromEntries(Object.entries(copy.stringData).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
        delete copy.stringData;
      }
      return [`${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`, copy];
    }),
  );
}

/** Renders an overlay of deploy/agent for `install` with `components`, as a user's repository holds it. */
function render(install: ManifestInstall, components: readonly AgentComponent[]): Obj[] {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-overlay-"));
  try {
    // kustomize takes bases and components by relative path only.
    const rel = path.relative(dir, ROOT);
    writeFileSync(path.join(dir, "token.txt"), install.token);
    writeFileSync(path.join(dir, "settings.yaml"), YAML.stringify(agentSettings(install)));
    writeFileSync(
      path.join(dir, "kustomization.yaml"),
      YAML.stringify({
        resources: [`${rel}/base`, "settings.yaml"],
        components: components.map((c) => `${rel}/components/${c}`),
        secretGenerator: [tokenSecretGenerator()],
      }),
    );
    const out = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
    return YAML.parseAllDocuments(out).map((d) => d.toJS() as Obj);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function assertSameObjects(rendered: Obj[], console: Obj[]) {
  const a = byKey(rendered);
  const b = byKey(console);
  assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort(), "the same objects");
  for (const [key, obj] of b) assert.deepEqual(a.get(key), obj, key);
}

const BASIC: ManifestInstall = {
  agentUrl: "https://fleet.acme.io:8443",
  caFingerprint: `sha256:${"cd".repeat(32)}`,
  agentImage: "registry.acme.io/fleet/agent:1.4.0",
  clusterName: "edge-7",
  labels: {},
  token: "frt_abc123_secret",
};

test("kubectl kustomize: install alone renders the console's manifest for a cluster with no options", () => {
  assertSameObjects(render(BASIC, ["install"]), withoutInstallAnnotation(agentManifestObjects(BASIC)) as Obj[]);
});

test("kubectl kustomize: every component renders the console's manifest with every option", () => {
  const install: ManifestInstall = {
    ...EXAMPLE_INSTALL,
    token: "frt_abc123_secret",
    allowNodeActions: true,
    metrics: true,
    logFormat: "json",
  };
  assertSameObjects(render(install, AGENT_COMPONENTS), withoutInstallAnnotation(agentManifestObjects(install)) as Obj[]);
});

test("the example overlay, with a token file added, renders", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-example-"));
  try {
    const example = path.join(dir, "deploy/agent/example");
    cpSync(ROOT, path.join(dir, "deploy/agent"), { recursive: true });
    writeFileSync(path.join(example, "token.txt"), "frt_abc123_secret");
    const objects = YAML.parseAllDocuments(execFileSync("kubectl", ["kustomize", example], { encoding: "utf8" })).map(
      (d) => d.toJS() as Obj,
    );
    const deployment = objects.find((o) => o.kind === "Deployment") as Obj & {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    const args = deployment.spec.template.spec.containers[0]!.args;
    assert.equal(args[args.indexOf("--name") + 1], EXAMPLE_INSTALL.clusterName);
    assert.equal(args[args.indexOf("--labels") + 1], "env=prod,region=eu-west-1");
    assert.ok(objects.some((o) => o.kind === "Secret" && o.metadata.name === "fleet-agent-token"));
    assert.ok(!objects.some((o) => o.kind === "AgentSettings"), "the settings are local: never applied");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
