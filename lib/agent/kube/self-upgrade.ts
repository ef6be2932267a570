import { directiveParam, type Directive } from "../directives";
import type { LogCode, LogFields, LogLevel } from "../log";
import type { DirectiveState } from "./directive-state";
import type { KubeClient } from "./kube-client";

// The `upgrade` directive in a cluster: the agent patches its own Deployment's image and stays on
// the directive until the new version reports it. The Deployment rolls out with maxUnavailable 0,
// so this agent runs until the new pod is Ready (a replacement waiting for the Lease is Ready as a
// standby) and is then stopped by Kubernetes; the new agent sees the directive again and
// acknowledges it. Still running past the deadline means the new pod never became Ready
// (ImagePullBackOff, a crash at start): the previous image, recorded in the state before the
// patch, is put back and the directive fails with the reason.

/** What an upgrade in progress needs to survive a restart of the agent that started it. */
export interface UpgradeRecord {
  directiveId: string;
  image: string;
  previousImage: string;
  startedAt: number;
}

export interface UpgradeRecords {
  loadUpgrade(): Promise<UpgradeRecord | null>;
  saveUpgrade(record: UpgradeRecord | null): Promise<void>;
}

export interface SelfUpgrade {
  client: KubeClient;
  namespace: string;
  deployment: string;
  agentVersion: string;
  records: UpgradeRecords;
  timeoutMs: number;
  now: number;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
}

/** The repository of an image reference: without its digest, then without its tag. */
export function imageRepository(image: string): string {
  const name = image.split("@")[0]!;
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  return colon > slash ? name.slice(0, colon) : name;
}

type Container = { name: string; image?: string };

export async function upgradeRound(o: SelfUpgrade, d: Directive): Promise<DirectiveState> {
  const image = directiveParam(d, "image");
  const version = directiveParam(d, "version");
  if (typeof image !== "string" || !image) return { state: "failed", reason: "the upgrade directive names no image" };
  const path = `/apis/apps/v1/namespaces/${o.namespace}/deployments/${o.deployment}`;
  const res = await o.client.request("getDeployment", path);
  const containers =
    (res.body as { spec?: { template?: { spec?: { containers?: Container[] } } } }).spec?.template?.spec?.containers ?? [];
  const container = containers.find((c) => c.name === "agent") ?? containers[0];
  if (!container?.image) return { state: "failed", reason: `Deployment ${o.namespace}/${o.deployment} has no container` };
  const record = await o.records.loadUpgrade();
  const installed = record?.directiveId === d.id ? record.previousImage : container.image;
  // Only the installed image's repository: a compromised or mistaken console cannot make the
  // agent run an arbitrary image with its permissions.
  if (imageRepository(image) !== imageRepository(installed)) {
    return {
      state: "failed",
      reason: `the upgrade image ${image} is not in the installed image's repository ${imageRepository(installed)}`,
    };
  }
  if (typeof version === "string" && version === o.agentVersion) {
    // This is the new agent: the upgrade is done.
    if (record) await o.records.saveUpgrade(null);
    return { state: "done" };
  }
  const patchImage = (to: string) =>
    o.client.request("patchDeployment", path, {
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { template: { spec: { containers: [{ name: container.name, image: to }] } } } },
    });
  if (container.image !== image) {
    // Written before the patch: an agent restarted in between knows what to put back.
    await o.records.saveUpgrade({ directiveId: d.id, image, previousImage: container.image, startedAt: o.now });
    // The image exactly as the console gave it: a digest pin stays a digest pin.
    await patchImage(image);
    o.log("info", "UPGRADE_STARTED", `patched Deployment ${o.namespace}/${o.deployment} to ${image}: waiting for the new pod`, {
      id: d.id,
      from: container.image,
    });
    // Without a version the new agent cannot be told apart: done once patched.
    return typeof version === "string" ? { state: "running" } : { state: "done" };
  }
  if (typeof version !== "string") return { state: "done" };
  if (!record || record.directiveId !== d.id) {
    // Patched by someone else (or before records existed): nothing known to restore.
    return { state: "failed", reason: `the Deployment already runs ${image}, but this agent is still ${o.agentVersion}` };
  }
  if (o.now - record.startedAt < o.timeoutMs) return { state: "running" };
  await patchImage(record.previousImage);
  await o.records.saveUpgrade(null);
  o.log("warn", "UPGRADE_ROLLED_BACK", `the new pod was not Ready in time: restored ${record.previousImage}`, { id: d.id });
  return {
    state: "failed",
    reason: `the new agent pod (${image}) was not Ready within ${Math.round(o.timeoutMs / 1000)} s: restored the previous image ${record.previousImage}`,
  };
}

/** Records kept in memory, for an agent whose state is not in the cluster (a laptop's state dir). */
export function memoryUpgradeRecords(): UpgradeRecords {
  let record: UpgradeRecord | null = null;
  return {
    loadUpgrade: async () => record,
    saveUpgrade: async (r) => void (record = r),
  };
}
