// The agent as a cluster runs it: Dockerfile.agent built (tests/helpers/container-image.ts), the
// console's manifest applied to the loopback Kubernetes API (or applied there by the server), and
// the container's process composed from the image config and the Deployment the API holds, then
// run from the built files as the image's user with a read-only root, the pod's service-account
// files and env.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { agentManifestObjects, type ManifestInstall } from "@/lib/domain/agent-manifest";
import { buildImage, composeProcess, hostPath, type BuiltImage, type PodContainer, type PodSecurity } from "./container-image";
import type { FakeKubeApi } from "./fake-kube-api";
import { freePort } from "./fleet-server";

/** Files and folders under `dir` made read-only (the manifest's readOnlyRootFilesystem) yet readable by any user. */
function readOnly(dir: string) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) readOnly(p);
    else fs.chmodSync(p, 0o444);
  }
  fs.chmodSync(dir, 0o555);
}

/** Builds Dockerfile.agent once; its root filesystem read-only, reachable by the image's non-root user. */
export function buildAgentImage(): BuiltImage {
  const image = buildImage("Dockerfile.agent", process.cwd());
  // mkdtemp folders are 0700: let the image's user reach its root.
  for (let dir = path.dirname(image.rootfs); dir.startsWith(tmpdir() + path.sep); dir = path.dirname(dir))
    fs.chmodSync(dir, 0o755);
  readOnly(image.rootfs);
  const dispose = image.dispose;
  return {
    ...image,
    dispose: () => {
      fs.chmodSync(image.rootfs, 0o755);
      dispose();
    },
  };
}

export interface AgentPod {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
  /** The host port standing for the container's health port. */
  healthPort: number;
  uid: number;
  argv: string[];
}

type PodSpec = {
  securityContext?: PodSecurity;
  containers: (PodContainer & { image: string; ports?: { containerPort: number }[] })[];
};

/**
 * `kubectl apply` of the manifest: each object applied as FakeKubeApi.applyObject does (Secrets
 * keep keys the manifest does not name, RBAC takes effect, the Deployment is stored).
 */
export function applyManifest(kube: FakeKubeApi, objects: ReturnType<typeof agentManifestObjects>) {
  for (const o of objects) kube.applyObject(o, { fieldManager: "kubectl-client-side-apply", operation: "Update" });
}

/** Applies the manifest for `install` to `kube` (applyManifest) and starts its Deployment (startDeploymentPod). */
export async function startAgentPod(
  image: BuiltImage,
  install: ManifestInstall,
  kube: FakeKubeApi,
  serviceAccountToken: string,
): Promise<AgentPod> {
  applyManifest(kube, agentManifestObjects(install));
  return startDeploymentPod(image, kube, serviceAccountToken);
}

/**
 * Starts the container of the Deployment `kube` holds, as whoever applied it left it (the
 * manifest, or a server's server-side apply): command and args composed with the image's
 * ENTRYPOINT and CMD as Kubernetes does, image paths mapped into the built root, the pod's network
 * namespace mapped to a free loopback port for the health port, the service-account volume to a
 * folder laid out as a pod's.
 */
export async function startDeploymentPod(image: BuiltImage, kube: FakeKubeApi, serviceAccountToken: string): Promise<AgentPod> {
  const pod = (structuredClone(kube.deployment).spec as { template: { spec: PodSpec } }).template.spec;
  const container = pod.containers[0]!;
  const proc = composeProcess(image.config, pod.securityContext ?? {}, container);

  const [node, ...rest] = proc.argv;
  if (node !== "/nodejs/bin/node")
    throw new Error(`the container would exec ${node}, not the image's node: ${proc.argv.join(" ")}`);
  const healthPort = await freePort();
  const args = rest.map((arg, i) => {
    if (rest[i - 1] === "--health-port") {
      if (Number(arg) !== container.ports?.[0]?.containerPort) throw new Error("--health-port is not the container's port");
      return String(healthPort);
    }
    const inImage = arg.startsWith("/") ? hostPath(image.rootfs, "/", arg) : null;
    return inImage && fs.existsSync(inImage) ? inImage : arg;
  });

  const saRoot = fs.mkdtempSync(path.join(tmpdir(), "fleet-pod-"));
  fs.chmodSync(saRoot, 0o755);
  const saDir = kube.layOutServiceAccount(saRoot, serviceAccountToken);
  // The image's and the manifest's env, nothing of this test's; plus what the kubelet adds: the
  // API's Service, and (mapped) where the service account is mounted.
  const env: Record<string, string> = {
    ...proc.env,
    KUBERNETES_SERVICE_HOST: "127.0.0.1",
    KUBERNETES_SERVICE_PORT: String(kube.port),
    FLEET_AGENT_SERVICE_ACCOUNT_DIR: saDir,
  };
  const child = spawn(process.execPath, args, {
    cwd: hostPath(image.rootfs, proc.workdir, "."),
    uid: proc.uid,
    gid: proc.gid,
    stdio: ["ignore", "pipe", "pipe"],
    env: env as NodeJS.ProcessEnv,
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      fs.rmSync(saRoot, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return { child, exited, output: () => output, healthPort, uid: proc.uid, argv: proc.argv };
}
