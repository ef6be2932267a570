// deploy/agent: the agent's manifest as a kustomize base with components, for clusters installed
// by GitOps (Argo CD, Flux) or `kubectl apply -k`. Generated from agentManifestObjects, the same
// source as the console's download (`npm run gen:agent-kustomize` writes the files; a unit test
// fails when they are stale and renders them with `kubectl kustomize` against the console's
// manifest for the same options).
//
// What differs per cluster lives in one file of the user's overlay: an AgentSettings object marked
// `config.kubernetes.io/local-config` (kustomize reads it, never outputs it). The components copy
// its fields into the objects with `replacements`. The token Secret is never in the base: the
// overlay generates it from a file the user keeps out of the repository.
import YAML from "yaml";
import { AGENT_OBJECT_NAMES } from "./agent-kube-calls";
import {
  AGENT_INSTALL_ANNOTATION,
  agentManifestObjects,
  formatLabelsFlag,
  METRICS_SERVICE,
  NODE_ACTIONS_ROLE,
  PROXY_CA_CONFIG_MAP,
  type ManifestInstall,
  type ManifestObject,
} from "./agent-manifest";

export const AGENT_SETTINGS = { apiVersion: "config.fleet-registry.io/v1alpha1", kind: "AgentSettings", name: "fleet-agent" };

/** The values the base carries until the install component replaces them from the settings. */
const PLACEHOLDER: ManifestInstall = {
  agentUrl: "https://fleet.example.com:8443",
  caFingerprint: `sha256:${"0".repeat(64)}`,
  agentImage: "fleet-agent:placeholder",
  clusterName: "cluster-name",
  labels: {},
  token: "unused",
};
const PLACEHOLDER_PEM = "-----BEGIN CERTIFICATE-----\nplaceholder\n-----END CERTIFICATE-----\n";

/** The example overlay's cluster, with a value for every component. */
export const EXAMPLE_INSTALL: ManifestInstall = {
  ...PLACEHOLDER,
  agentUrl: "https://fleet.example.com:8443",
  clusterName: "prod-eu-1",
  agentImage: "registry.example.com/fleet/agent:1.4.0",
  caFingerprint: `sha256:${"ab".repeat(32)}`,
  labels: { env: "prod", region: "eu-west-1" },
  // Read only by the components that use them.
  httpsProxy: "http://proxy.internal:3128",
  noProxy: "10.0.0.0/8,.svc,.cluster.local",
  proxyCaPem: "-----BEGIN CERTIFICATE-----\nthe proxy's CA certificate, PEM\n-----END CERTIFICATE-----\n",
  imagePullSecrets: ["regcred"],
  priorityClassName: "system-cluster-critical",
  tolerations: [{ key: "dedicated", operator: "Equal", value: "platform", effect: "NoSchedule" }],
};

/** The components, in the order an overlay lists them: each one's flags follow the ones before. */
export const AGENT_COMPONENTS = [
  "install",
  "labels",
  "node-actions",
  "metrics",
  "json-logs",
  "proxy",
  "proxy-ca",
  "registry-mirror",
  "scheduling",
  "resources",
] as const;
export type AgentComponent = (typeof AGENT_COMPONENTS)[number];

type Json = ManifestObject[keyof ManifestObject];
type Replacement = { source: string; targets: { select: Record<string, string>; fieldPaths: string[]; create?: boolean }[] };

const INSTANCE_LABEL = "metadata.labels.[app.kubernetes.io/instance]";
const CONTAINER = "spec.template.spec.containers.[name=agent]";
const DEPLOYMENT = { kind: "Deployment", name: AGENT_OBJECT_NAMES.deployment };

function deploymentOf(objects: ManifestObject[]) {
  const d = objects.find((o) => o.kind === "Deployment")!;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated Deployment's known shape
  return d as any;
}
const argsOf = (objects: ManifestObject[]): string[] => deploymentOf(objects).spec.template.spec.containers[0].args;

/** Objects `with` has that `without` lacks (by kind and name). */
function added(without: ManifestObject[], withOption: ManifestObject[]): ManifestObject[] {
  const key = (o: ManifestObject) => `${o.kind}/${o.metadata.name}`;
  const before = new Set(without.map(key));
  return withOption.filter((o) => !before.has(key(o)));
}

/** The flags `withOption` appends after those of `without` (options add theirs at the end). */
function appendedArgs(without: ManifestObject[], withOption: ManifestObject[]): string[] {
  const a = argsOf(without);
  const b = argsOf(withOption);
  if (b.slice(0, a.length).join("\0") !== a.join("\0")) throw new Error("an option's flags must follow the others");
  return b.slice(a.length);
}

const appendArgs = (args: string[]) =>
  args.map((value) => ({ op: "add", path: "/spec/template/spec/containers/0/args/-", value }));

function replacement(source: string, targets: Replacement["targets"]): Replacement {
  return { source, targets };
}

/** The instance label of objects a component adds (the install component ran before they existed). */
function instanceLabelOf(objects: ManifestObject[]): Replacement[] {
  return objects.length
    ? [
        replacement("spec.clusterName", [
          ...objects.map((o) => ({ select: { kind: o.kind, name: o.metadata.name }, fieldPaths: [INSTANCE_LABEL] })),
        ]),
      ]
    : [];
}

function yamlDocs(objects: unknown[]): string {
  return objects.map((o) => YAML.stringify(o, { lineWidth: 0, aliasDuplicateObjects: false })).join("---\n");
}

function kustomization(fields: Record<string, unknown>): string {
  return YAML.stringify(fields, { lineWidth: 0, aliasDuplicateObjects: false });
}

function component(
  files: Record<string, string>,
  name: AgentComponent,
  why: string,
  parts: { objects?: ManifestObject[]; patches?: Json[]; replacements?: Replacement[] },
) {
  const dir = `components/${name}`;
  const resources: string[] = [];
  if (parts.objects?.length) {
    files[`${dir}/objects.yaml`] = yamlDocs(parts.objects);
    resources.push("objects.yaml");
  }
  const replacements = [...(parts.replacements ?? []), ...instanceLabelOf(parts.objects ?? [])].map((r) => ({
    source: { kind: AGENT_SETTINGS.kind, name: AGENT_SETTINGS.name, fieldPath: r.source },
    targets: r.targets.map((t) => ({
      select: t.select,
      fieldPaths: t.fieldPaths,
      ...(t.create ? { options: { create: true } } : {}),
    })),
  }));
  files[`${dir}/kustomization.yaml`] =
    `# ${why}\n# Generated by npm run gen:agent-kustomize from lib/domain/agent-manifest.ts: do not edit.\n` +
    kustomization({
      apiVersion: "kustomize.config.k8s.io/v1alpha1",
      kind: "Component",
      ...(resources.length ? { resources } : {}),
      ...(parts.patches?.length
        ? {
            patches: [
              { target: DEPLOYMENT, patch: YAML.stringify(parts.patches, { lineWidth: 0, aliasDuplicateObjects: false }) },
            ],
          }
        : {}),
      ...(replacements.length ? { replacements } : {}),
    });
}

/** An overlay's settings: what the console asks for when it builds a manifest. */
export function agentSettings(install: ManifestInstall): Record<string, unknown> {
  const deployment = deploymentOf(agentManifestObjects(install));
  const pod = deployment.spec.template.spec;
  return {
    apiVersion: AGENT_SETTINGS.apiVersion,
    kind: AGENT_SETTINGS.kind,
    metadata: { name: AGENT_SETTINGS.name, annotations: { "config.kubernetes.io/local-config": "true" } },
    spec: {
      server: install.agentUrl,
      clusterName: install.clusterName,
      caFingerprint: install.caFingerprint,
      image: install.agentImage,
      labels: formatLabelsFlag(install.labels),
      proxy: { httpsProxy: install.httpsProxy ?? "", noProxy: install.noProxy ?? "", caBundle: install.proxyCaPem ?? "" },
      imagePullSecrets: pod.imagePullSecrets ?? [],
      scheduling: {
        priorityClassName: install.priorityClassName ?? "",
        tolerations: install.tolerations ?? [],
        nodeSelector: pod.nodeSelector,
      },
      resources: pod.containers[0].resources,
    },
  };
}

/**
 * The objects without the Deployment's install annotation. It records one cluster's options as one
 * JSON text, which kustomize's replacements cannot fill in from the settings; without it the
 * agent's upgrade applies the new image alone (and a Deployment that Argo CD or Flux manages is
 * upgraded through the repository anyway).
 */
export function withoutInstallAnnotation(objects: readonly ManifestObject[]): ManifestObject[] {
  return objects.map((o) => {
    if (!o.metadata.annotations || !(AGENT_INSTALL_ANNOTATION in o.metadata.annotations)) return o;
    const { [AGENT_INSTALL_ANNOTATION]: _dropped, ...annotations } = o.metadata.annotations;
    const { annotations: _all, ...rest } = o.metadata;
    return { ...o, metadata: Object.keys(annotations).length ? { ...rest, annotations } : rest };
  });
}

/** Every file of deploy/agent, by path relative to it. */
export function agentKustomizeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const base = withoutInstallAnnotation(agentManifestObjects(PLACEHOLDER));
  const baseArgs = argsOf(base);
  const at = (flag: string) => baseArgs.indexOf(flag) + 1;

  files["base/agent.yaml"] = yamlDocs(base.filter((o) => o.metadata.name !== AGENT_OBJECT_NAMES.tokenSecret));
  files["base/kustomization.yaml"] =
    "# The agent's objects but the token Secret, with placeholders: an overlay lists components/install\n" +
    '# (and the others it wants) and an AgentSettings file; see docs/agent.md "Installed by GitOps".\n' +
    "# Generated by npm run gen:agent-kustomize from lib/domain/agent-manifest.ts: do not edit.\n" +
    kustomization({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: ["agent.yaml"] });

  const everyObject = base
    .filter((o) => o.metadata.name !== AGENT_OBJECT_NAMES.tokenSecret)
    .map((o) => ({ select: { kind: o.kind, name: o.metadata.name }, fieldPaths: [INSTANCE_LABEL] }));
  component(files, "install", "Required, listed first: the cluster's name, the fleet's address and CA, the image.", {
    replacements: [
      replacement("spec.server", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.args.${at("--server")}`] }]),
      replacement("spec.caFingerprint", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.args.${at("--ca-fingerprint")}`] }]),
      replacement("spec.image", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.image`] }]),
      replacement("spec.clusterName", [
        {
          select: DEPLOYMENT,
          fieldPaths: [`${CONTAINER}.args.${at("--name")}`, "spec.template.metadata.labels.[app.kubernetes.io/instance]"],
        },
        ...everyObject,
        // The overlay's generated token Secret.
        { select: { kind: "Secret", name: AGENT_OBJECT_NAMES.tokenSecret }, fieldPaths: [INSTANCE_LABEL], create: true },
      ]),
    ],
  });

  // --labels goes right after --name, where the console's manifest has it.
  const withLabels = argsOf(agentManifestObjects({ ...PLACEHOLDER, labels: { env: "x" } }));
  const labelsAt = withLabels.indexOf("--labels");
  component(files, "labels", "The labels the agent registers with (spec.labels: k=v,k2=v2).", {
    patches: [
      { op: "add", path: `/spec/template/spec/containers/0/args/${labelsAt}`, value: "--labels" },
      { op: "add", path: `/spec/template/spec/containers/0/args/${labelsAt + 1}`, value: "placeholder=labels" },
    ],
    replacements: [replacement("spec.labels", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.args.${labelsAt + 1}`] }])],
  });

  const optional = (name: AgentComponent, why: string, option: Partial<ManifestInstall>, replacements: Replacement[] = []) => {
    const withOption = agentManifestObjects({ ...PLACEHOLDER, ...option });
    component(files, name, why, {
      objects: added(base, withOption),
      patches: appendArgs(appendedArgs(base, withOption)),
      replacements,
    });
    return withOption;
  };
  optional("node-actions", `drainNodePool: the ${NODE_ACTIONS_ROLE} ClusterRole and --allow-node-actions.`, {
    allowNodeActions: true,
  });
  optional("metrics", `/metrics on the health port and the ${METRICS_SERVICE} Service to scrape.`, { metrics: true });
  optional("json-logs", "One JSON object per log line (--log-format json).", { logFormat: "json" });

  const proxyPod = deploymentOf(
    agentManifestObjects({ ...PLACEHOLDER, httpsProxy: "http://proxy.placeholder", noProxy: "placeholder.no-proxy" }),
  ).spec.template.spec.containers[0];
  component(files, "proxy", "HTTPS_PROXY and NO_PROXY for the connection to the fleet (spec.proxy).", {
    patches: [{ op: "add", path: "/spec/template/spec/containers/0/env", value: proxyPod.env }],
    replacements: [
      replacement("spec.proxy.httpsProxy", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.env.[name=HTTPS_PROXY].value`] }]),
      replacement("spec.proxy.noProxy", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.env.[name=NO_PROXY].value`] }]),
    ],
  });

  const withCa = agentManifestObjects({ ...PLACEHOLDER, proxyCaPem: PLACEHOLDER_PEM });
  const caPod = deploymentOf(withCa).spec.template.spec;
  const caVolume = caPod.volumes.find((v: { configMap?: { name: string } }) => v.configMap?.name === PROXY_CA_CONFIG_MAP);
  const caMount = caPod.containers[0].volumeMounts.find((m: { name: string }) => m.name === caVolume.name);
  component(files, "proxy-ca", `An https:// proxy's CA bundle (spec.proxy.caBundle) in the ${PROXY_CA_CONFIG_MAP} ConfigMap.`, {
    objects: added(base, withCa),
    patches: [
      ...appendArgs(appendedArgs(base, withCa)),
      { op: "add", path: "/spec/template/spec/volumes/-", value: caVolume },
      { op: "add", path: "/spec/template/spec/containers/0/volumeMounts/-", value: caMount },
    ],
    replacements: [
      replacement("spec.proxy.caBundle", [
        { select: { kind: "ConfigMap", name: PROXY_CA_CONFIG_MAP }, fieldPaths: ["data.[ca.crt]"] },
      ]),
    ],
  });

  component(
    files,
    "registry-mirror",
    "Pull the image from a private mirror: spec.image names it, spec.imagePullSecrets the Secrets.",
    {
      replacements: [
        replacement("spec.imagePullSecrets", [
          { select: DEPLOYMENT, fieldPaths: ["spec.template.spec.imagePullSecrets"], create: true },
        ]),
      ],
    },
  );
  component(
    files,
    "scheduling",
    "Priority class, tolerations and node selector (keep kubernetes.io/os: linux) from spec.scheduling.",
    {
      replacements: [
        replacement("spec.scheduling.priorityClassName", [
          { select: DEPLOYMENT, fieldPaths: ["spec.template.spec.priorityClassName"], create: true },
        ]),
        replacement("spec.scheduling.tolerations", [
          { select: DEPLOYMENT, fieldPaths: ["spec.template.spec.tolerations"], create: true },
        ]),
        replacement("spec.scheduling.nodeSelector", [{ select: DEPLOYMENT, fieldPaths: ["spec.template.spec.nodeSelector"] }]),
      ],
    },
  );
  component(files, "resources", "The container's requests and limits from spec.resources.", {
    replacements: [replacement("spec.resources", [{ select: DEPLOYMENT, fieldPaths: [`${CONTAINER}.resources`] }])],
  });

  files["example/settings.yaml"] =
    "# This cluster's values: the console's Tokens page shows them after minting.\n" +
    YAML.stringify(agentSettings(EXAMPLE_INSTALL), { lineWidth: 0, aliasDuplicateObjects: false });
  files["example/kustomization.yaml"] =
    "# An overlay for one cluster: copy this folder into your GitOps repository, point resources and\n" +
    "# components at deploy/agent (a path or a remote URL with ?ref=), edit settings.yaml, and put the\n" +
    "# registration token in token.txt (keep it out of Git: a sealed or external secret in practice).\n" +
    "# Components go in this order; uncomment the ones you need and fill their part of settings.yaml.\n" +
    "# Generated by npm run gen:agent-kustomize from lib/domain/agent-manifest.ts.\n" +
    kustomization({
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      resources: ["../base", "settings.yaml"],
      components: ["../components/install", "../components/labels"],
      secretGenerator: [tokenSecretGenerator()],
    }).replace(
      "  - ../components/labels\n",
      "  - ../components/labels\n" +
        AGENT_COMPONENTS.filter((c) => c !== "install" && c !== "labels")
          .map((c) => `  # - ../components/${c}\n`)
          .join(""),
    );
  return files;
}

/** The overlay's generator of the token Secret, named and labelled as the console's manifest names it. */
export function tokenSecretGenerator(file = "token.txt") {
  return {
    name: AGENT_OBJECT_NAMES.tokenSecret,
    namespace: AGENT_OBJECT_NAMES.namespace,
    files: [`token=${file}`],
    type: "Opaque",
    options: {
      disableNameSuffixHash: true,
      labels: { "app.kubernetes.io/name": "fleet-agent", "app.kubernetes.io/part-of": "fleet-registry" },
    },
  };
}
