// The manifest's options for platform teams: /metrics with a Service to scrape, JSON logs, and an
// https:// proxy's CA bundle from a ConfigMap. Each reaches the agent as flags it accepts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Service } from "kubernetes-models/v1/Service";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { parseAgentArgs } from "@/lib/agent/args";
import {
  agentManifestObjects,
  AGENT_HEALTH_PORT,
  METRICS_SERVICE,
  PROXY_CA_CONFIG_MAP,
  proxyCaProblem,
  type ManifestInstall,
} from "@/lib/domain/agent-manifest";

const INSTALL: ManifestInstall = {
  agentUrl: "https://fleet.example.com:8443",
  caFingerprint: `sha256:${"ab".repeat(32)}`,
  agentImage: "registry.example.com/fleet/agent:1.4.0",
  clusterName: "prod-eu-1",
  labels: {},
  token: "frt_x_y",
};
const PEM = "-----BEGIN CERTIFICATE-----\nMIIBexample\n-----END CERTIFICATE-----\n";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests asserted field by field
type Any = any;
const deploymentOf = (objects: Any[]) => objects.find((o) => o.kind === "Deployment");
const argsOf = (objects: Any[]): string[] => deploymentOf(objects).spec.template.spec.containers[0].args;

test("by default: no /metrics, text logs, no proxy CA, no extra objects", () => {
  const objects: Any[] = agentManifestObjects(INSTALL);
  const args = parseAgentArgs(argsOf(objects), { KUBERNETES_SERVICE_HOST: "10.96.0.1" });
  assert.equal(args.metrics, false);
  assert.equal(args.logFormat, "text");
  assert.equal(args.proxyCaFile, undefined);
  assert.ok(!objects.some((o) => o.kind === "Service" || o.kind === "ConfigMap"));
});

test("metrics: --metrics on the health port and a Service selecting the pod on it", () => {
  const objects: Any[] = agentManifestObjects({ ...INSTALL, metrics: true });
  assert.equal(parseAgentArgs(argsOf(objects), { KUBERNETES_SERVICE_HOST: "x" }).metrics, true);
  const service = objects.find((o) => o.kind === "Service");
  assert.equal(service.metadata.name, METRICS_SERVICE);
  assert.doesNotThrow(() => new Service(service).validate());
  const pod = deploymentOf(objects).spec.template;
  for (const [k, v] of Object.entries(service.spec.selector)) assert.equal(pod.metadata.labels[k], v, "selects the agent's pod");
  assert.deepEqual(service.spec.ports, [{ name: "metrics", port: AGENT_HEALTH_PORT, targetPort: "health", protocol: "TCP" }]);
  assert.ok(
    pod.spec.containers[0].ports.some((p: Any) => p.name === "health"),
    "targetPort names a container port",
  );
  assert.equal(service.metadata.labels["app.kubernetes.io/name"], "fleet-agent", "a ServiceMonitor selects it by label");
});

test("logFormat json reaches --log-format", () => {
  assert.equal(
    parseAgentArgs(argsOf(agentManifestObjects({ ...INSTALL, logFormat: "json" })), { KUBERNETES_SERVICE_HOST: "x" }).logFormat,
    "json",
  );
});

test("a proxy CA: a ConfigMap, mounted read-only, named by --proxy-ca-file; a non-PEM bundle is refused", () => {
  const objects: Any[] = agentManifestObjects({ ...INSTALL, httpsProxy: "https://proxy.corp:3129", proxyCaPem: PEM });
  const configMap = objects.find((o) => o.kind === "ConfigMap");
  assert.equal(configMap.metadata.name, PROXY_CA_CONFIG_MAP);
  assert.equal(configMap.data["ca.crt"], PEM);
  assert.doesNotThrow(() => new ConfigMap(configMap).validate());
  const deployment = deploymentOf(objects);
  assert.doesNotThrow(() => new Deployment(deployment).validate());
  assert.ok(objects.indexOf(configMap) < objects.indexOf(deployment), "applied before the pod that mounts it");
  const pod = deployment.spec.template.spec;
  const volume = pod.volumes.find((v: Any) => v.configMap?.name === PROXY_CA_CONFIG_MAP);
  const mount = pod.containers[0].volumeMounts.find((m: Any) => m.name === volume.name);
  assert.equal(mount.readOnly, true);
  const file = parseAgentArgs(argsOf(objects), { KUBERNETES_SERVICE_HOST: "x" }).proxyCaFile!;
  assert.equal(file, `${mount.mountPath}/ca.crt`);
  assert.equal(proxyCaProblem(PEM), null);
  assert.match(proxyCaProblem("not a cert")!, /PEM/);
  assert.throws(() => agentManifestObjects({ ...INSTALL, proxyCaPem: "nope" }), /PEM/);
});
