// deploy/kubernetes/components/haproxy-edge, rendered by `kubectl kustomize` over the control
// plane's base as a user's overlay holds it: HAProxy as a sidecar runs deploy/haproxy/haproxy.cfg
// unchanged, every variable it reads is set and consistent with the app's, the Service's port is
// HAProxy's, and the app trusts HAProxy on loopback only. That HAProxy itself works with this
// configuration is tests/system/engine-free/haproxy-edge.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import YAML from "yaml";
import { parseEnv } from "@/lib/env";
import { isTrustedProxy, trustedProxies } from "@/lib/domain/client-address";

const BASE = path.join(process.cwd(), "deploy/kubernetes");
const CONFIG = readFileSync(path.join(process.cwd(), "deploy/haproxy/haproxy.cfg"), "utf8");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered objects of many shapes, asserted field by field
type Obj = { apiVersion: string; kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any };
type Container = {
  name: string;
  command?: string[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
};

function render(): Obj[] {
  const dir = mkdtempSync(path.join(tmpdir(), "edge-overlay-"));
  try {
    // kustomize takes bases and components by relative path only.
    const rel = path.relative(dir, BASE);
    writeFileSync(
      path.join(dir, "kustomization.yaml"),
      YAML.stringify({ resources: [rel], components: [`${rel}/components/haproxy-edge`] }),
    );
    const out = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
    return YAML.parseAllDocuments(out).map((d) => d.toJS() as Obj);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const objects = render();
const deployment = objects.find((o) => o.kind === "Deployment")!;
const pod = deployment.spec.template.spec;
const container = (name: string): Container => pod.containers.find((c: Container) => c.name === name);
const app = container("fleet-registry");
const haproxy = container("haproxy");
const envOf = (c: Container) => new Map(c.env.map((e) => [e.name, e.value]));

test("the sidecar runs deploy/haproxy/haproxy.cfg unchanged, from the generated ConfigMap, and the objects are valid", () => {
  const configMap = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("fleet-registry-haproxy"))!;
  assert.equal(configMap.data?.["haproxy.cfg"], CONFIG);
  assert.doesNotThrow(() => new ConfigMap(configMap as never).validate());
  assert.doesNotThrow(() => new Deployment(deployment as never).validate());
  const file = haproxy.command![haproxy.command!.indexOf("-f") + 1]!;
  const volume = pod.volumes.find((v: { configMap?: { name: string } }) => v.configMap?.name === configMap.metadata.name);
  const mount = haproxy.volumeMounts!.find((m) => m.name === volume.name)!;
  assert.equal(path.join(mount.mountPath, "haproxy.cfg"), file);
});

test("every variable haproxy.cfg reads is set, and agrees with the app's agent port and names", () => {
  const directives = CONFIG.split("\n").filter((l) => !l.trim().startsWith("#"));
  const wanted = new Set(directives.flatMap((l) => [...l.matchAll(/"\$\{([A-Z_]+)\}/g)].map((m) => m[1]!)));
  const env = envOf(haproxy);
  assert.deepEqual([...env.keys()].sort(), [...wanted].sort());
  const appEnv = envOf(app);
  assert.equal(env.get("AGENT_PORT_ADDR"), `127.0.0.1:${appEnv.get("AGENT_PORT")}`);
  assert.equal(env.get("AGENT_PORT_NAME"), appEnv.get("AGENT_HOSTNAMES")!.split(",")[0]);
  // The certificates come from the Secret, and the runtime API's socket goes where HAProxy may write.
  const mountOf = (dir: string) => haproxy.volumeMounts!.find((m) => dir === m.mountPath || dir.startsWith(`${m.mountPath}/`));
  const certs = pod.volumes.find((v: { name: string }) => v.name === mountOf(env.get("EDGE_CERT_DIR")!)?.name);
  assert.equal(certs.secret.secretName, "fleet-registry-edge");
  const run = pod.volumes.find((v: { name: string }) => v.name === mountOf(path.dirname(env.get("EDGE_ADMIN_SOCKET")!))?.name);
  assert.ok(run.emptyDir, "the admin socket's folder is writable");
});

test("agents reach HAProxy: the Service's port is the sidecar's, the app's agent port is on another", () => {
  const service = objects.find((o) => o.kind === "Service" && o.metadata.name === "fleet-registry-agent")!;
  const target = service.spec.ports[0].targetPort;
  assert.deepEqual(
    haproxy.ports!.map((p) => p.name),
    [target],
  );
  assert.ok(!app.ports!.some((p) => p.name === target), "the app no longer has the Service's port");
  assert.equal(haproxy.ports![0]!.containerPort, Number(/:(\d+)$/.exec(envOf(haproxy).get("EDGE_BIND")!)?.[1]));
  assert.notEqual(String(haproxy.ports![0]!.containerPort), envOf(app).get("AGENT_PORT"));
});

test("the app believes a forwarded certificate from HAProxy on loopback only, pinned from the edge Secret", () => {
  const env = envOf(app);
  const pin = app.env.find((e) => e.name === "CLIENT_CERT_PROXY_FINGERPRINTS")?.valueFrom?.secretKeyRef;
  assert.deepEqual(pin, { name: "fleet-registry-edge", key: "CLIENT_CERT_PROXY_FINGERPRINTS" });
  const parsed = parseEnv({
    NODE_ENV: "production",
    ...Object.fromEntries([...env].filter((e): e is [string, string] => e[1] !== undefined)),
    CLIENT_CERT_PROXY_FINGERPRINTS: `sha256:${"ab".repeat(32)}`,
  });
  assert.deepEqual(parsed.clientCertProxies?.cidrs, ["127.0.0.1/32"]);
  // The agent's own address reaches the rate limits through HAProxy's X-Forwarded-For; the base's
  // list (the ingress controller's range, for the console) stays as it is.
  const base = YAML.parse(readFileSync(path.join(BASE, "deployment.yaml"), "utf8")).spec.template.spec.containers[0].env;
  const baseCidrs = base.find((e: { name: string }) => e.name === "TRUSTED_PROXY_CIDRS").value;
  assert.equal(env.get("TRUSTED_PROXY_CIDRS"), `127.0.0.1/32,${baseCidrs}`);
  const proxies = trustedProxies(parsed.TRUSTED_PROXY_CIDRS);
  assert.ok(isTrustedProxy(proxies, "127.0.0.1"));
  assert.ok(!isTrustedProxy(proxies, "10.1.2.3"), "not the pod network");
});
