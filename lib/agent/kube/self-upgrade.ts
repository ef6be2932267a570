import { AGENT_INSTALL_ANNOTATION, agentManifestObjects, type InstallOptions } from "../../domain/agent-manifest";
import { errorText } from "../../domain/error-text";
import { directiveParam, type Directive } from "../directives";
import type { LogCode, LogFields, LogLevel } from "../log";
import type { DirectiveState } from "./directive-state";
import { GITOPS_MANAGER_NAMES, gitOpsOwner } from "./gitops-owner";
import type { KubeClient } from "./kube-client";

// The `upgrade` directive in a cluster. The agent regenerates its Deployment for the new version
// from the install options the manifest recorded on it (so new flags come along), keeping the
// installed image repository (a mirror stays the mirror), and applies it server-side as
// `fleet-agent`. The Deployment rolls out with maxUnavailable 0, so this agent runs until the new
// pod is Ready (a standby turns Ready only after its preflight) and is then stopped by Kubernetes;
// the new agent sees the directive again and acknowledges it. Still running past the deadline
// means the new pod never became Ready: the previous pod template, recorded in the state before
// the apply, is put back and the directive fails with the reason. A Deployment a GitOps
// controller owns is never touched: the upgrade goes through its repository.

/** What an upgrade in progress needs to survive a restart of the agent that started it. */
export interface UpgradeRecord {
  directiveId: string;
  /** The version being installed (null: a directive without one). */
  version: string | null;
  /** The agent container's image as applied. */
  image: string;
  previousImage: string;
  /** The pod template before the apply: what a rollback puts back. */
  previousTemplate?: unknown;
  /** Wall-clock ms: fixed when the directive is first carried out, whoever restarts since. */
  startedAt: number;
  /** Wall-clock ms after which the previous template is restored (absolute: survives a restart). */
  deadline: number;
  /** Set by a new version that rolled itself back: the previous agent fails the directive with it. */
  failed?: string;
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

/** How long the new pod has to become Ready when a record does not say (written by an older agent). */
const DEFAULT_DEADLINE_MS = 10 * 60_000;

/** A stored record, or null when it is not one (an unreadable record must not block every upgrade). */
export function parseUpgradeRecord(text: string): UpgradeRecord | null {
  let raw: Partial<UpgradeRecord> | null;
  try {
    raw = JSON.parse(text) as Partial<UpgradeRecord> | null;
  } catch {
    return null;
  }
  if (!raw || typeof raw.directiveId !== "string" || typeof raw.image !== "string" || typeof raw.previousImage !== "string")
    return null;
  const startedAt = typeof raw.startedAt === "number" ? raw.startedAt : 0;
  return {
    ...raw,
    directiveId: raw.directiveId,
    version: typeof raw.version === "string" ? raw.version : null,
    image: raw.image,
    previousImage: raw.previousImage,
    ...(typeof raw.failed === "string" ? { failed: raw.failed } : {}),
    startedAt,
    deadline: typeof raw.deadline === "number" ? raw.deadline : startedAt + DEFAULT_DEADLINE_MS,
  };
}

/** Server-side apply's field manager: `kubectl get deploy -o yaml --show-managed-fields` names it. */
export const FIELD_MANAGER = "fleet-agent";

/** The repository of an image reference: without its digest, then without its tag. */
export function imageRepository(image: string): string {
  const name = image.split("@")[0]!;
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  return colon > slash ? name.slice(0, colon) : name;
}

/**
 * The directive's image on the installed repository: its tag and digest (a digest stays a digest)
 * on the repository the cluster pulls from, which may be a mirror or a pull-through cache. Only
 * ever the installed repository: a compromised or mistaken console cannot make the agent run an
 * arbitrary image with its permissions.
 */
export function imageOnInstalledRepository(directiveImage: string, installed: string): string {
  return imageRepository(installed) + directiveImage.slice(imageRepository(directiveImage).length);
}

type Container = { name: string; image?: string };
type Deployment = {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; managedFields?: { manager?: string }[] };
  spec?: { template?: { metadata?: unknown; spec?: { containers?: Container[] } } };
};

/** The install options the manifest recorded on the Deployment, or null (an older or hand-written manifest). */
export function recordedInstall(deployment: Deployment): InstallOptions | null {
  const text = deployment.metadata?.annotations?.[AGENT_INSTALL_ANNOTATION];
  if (!text) return null;
  try {
    const options = JSON.parse(text) as InstallOptions;
    return options && typeof options === "object" && typeof options.clusterName === "string" ? options : null;
  } catch {
    return null;
  }
}

export async function upgradeRound(o: SelfUpgrade, d: Directive): Promise<DirectiveState> {
  const wanted = directiveParam(d, "image");
  const version = directiveParam(d, "version");
  if (typeof wanted !== "string" || !wanted) return { state: "failed", reason: "the upgrade directive names no image" };
  // This is the new agent: done. The record stays until its first heartbeat is accepted.
  if (typeof version === "string" && version === o.agentVersion) return { state: "done" };
  const path = `/apis/apps/v1/namespaces/${o.namespace}/deployments/${o.deployment}`;
  const deployment = (await o.client.request("getDeployment", path)).body as Deployment;
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  const container = containers.find((c) => c.name === "agent") ?? containers[0];
  if (!container?.image) return { state: "failed", reason: `Deployment ${o.namespace}/${o.deployment} has no container` };
  const install = recordedInstall(deployment);
  const record = await o.records.loadUpgrade();
  const mine = record?.directiveId === d.id ? record : null;
  const image = mine?.image ?? imageOnInstalledRepository(wanted, container.image);
  if (mine?.failed) {
    // The new version put this one back: report it rather than try again.
    await o.records.saveUpgrade(null);
    return { state: "failed", reason: mine.failed };
  }

  const owner = gitOpsOwner(deployment.metadata, install?.clusterName ?? null);
  if (owner && !mine) {
    const by = GITOPS_MANAGER_NAMES[owner.manager];
    o.log(
      "info",
      "UPGRADE_BY_GITOPS",
      `${by} manages Deployment ${o.namespace}/${o.deployment} (${owner.mark}): not patching it`,
      {
        id: d.id,
        image,
      },
    );
    return {
      state: "failed",
      code: "gitops_managed",
      reason: `upgrade through your repository: image ${image} (${by} manages the Deployment: ${owner.mark})`,
    };
  }

  const apply = (body: object) => applyDeployment(o, body);

  if (!mine) {
    if (container.image === image) {
      if (typeof version !== "string") return { state: "done" };
      // Changed by someone else (or before records existed): nothing known to restore.
      return { state: "failed", reason: `the Deployment already runs ${image}, but this agent is still ${o.agentVersion}` };
    }
    let desired: object;
    try {
      desired = desiredDeployment(o, install, container.name, image);
    } catch (err) {
      return { state: "failed", reason: `the recorded install options do not make a manifest: ${errorText(err)}` };
    }
    // Written before the apply, once: an agent restarted in between knows what to put back and when.
    await o.records.saveUpgrade({
      directiveId: d.id,
      version: typeof version === "string" ? version : null,
      image,
      previousImage: container.image,
      previousTemplate: deployment.spec?.template,
      startedAt: o.now,
      deadline: o.now + o.timeoutMs,
    });
    await apply(desired);
    o.log("info", "UPGRADE_STARTED", `applied Deployment ${o.namespace}/${o.deployment} with ${image}: waiting for the new pod`, {
      id: d.id,
      from: container.image,
      manifest: install ? "regenerated" : "image only",
    });
    // Without a version the new agent cannot be told apart: done once applied.
    return typeof version === "string" ? { state: "running" } : { state: "done" };
  }

  if (container.image !== mine.image) {
    // Someone put another image back (a GitOps controller syncing, a person): fighting it would
    // only restart the pod again and again.
    await o.records.saveUpgrade(null);
    return {
      state: "failed",
      reason: `the Deployment was reverted (GitOps?): it runs ${container.image} instead of ${mine.image}; upgrade through whatever manages it`,
    };
  }
  if (o.now < mine.deadline) return { state: "running" };
  await apply(rollbackBody(o, install, container.name, mine));
  await o.records.saveUpgrade(null);
  o.log("warn", "UPGRADE_ROLLED_BACK", `the new pod was not Ready in time: restored ${mine.previousImage}`, { id: d.id });
  return {
    state: "failed",
    reason: `the new agent pod (${mine.image}) was not Ready within ${Math.round((mine.deadline - mine.startedAt) / 1000)} s: restored the previous image ${mine.previousImage}`,
  };
}

/**
 * Server-side apply as this agent's own field manager, forced: the fields it sets become its own
 * (kubectl's client-side apply keeps the rest), and a rollback that leaves a field out removes it.
 */
function applyDeployment(o: SelfUpgrade, body: object) {
  return o.client.request("patchDeployment", `/apis/apps/v1/namespaces/${o.namespace}/deployments/${o.deployment}`, {
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: FIELD_MANAGER, force: "true" },
    body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: o.deployment, namespace: o.namespace }, ...body },
  });
}

/**
 * The Deployment to apply for `image`: regenerated from the install options, else (an older or
 * hand-written manifest, or one moved to other names than the generator's) the image alone.
 */
function desiredDeployment(o: SelfUpgrade, install: InstallOptions | null, container: string, image: string): object {
  const imageOnly = { spec: { template: { spec: { containers: [{ name: container, image }] } } } };
  if (!install) return imageOnly;
  const generated = agentManifestObjects({ ...install, token: "", agentImage: image }).find((x) => x.kind === "Deployment")!;
  if (generated.metadata.namespace !== o.namespace || generated.metadata.name !== o.deployment) return imageOnly;
  return { metadata: { ...generated.metadata, name: o.deployment, namespace: o.namespace }, spec: generated.spec };
}

/** The previous pod template, within what the forward apply set (so this manager keeps the rest). */
function rollbackBody(o: SelfUpgrade, install: InstallOptions | null, container: string, record: UpgradeRecord): object {
  const previous = record.previousTemplate ?? { spec: { containers: [{ name: container, image: record.previousImage }] } };
  const desired = desiredDeployment(o, install, container, record.previousImage) as { spec: Record<string, unknown> };
  return { ...desired, spec: { ...desired.spec, template: previous } };
}

/**
 * After the new version's first accepted heartbeat: the upgrade is proven, its record goes.
 * Before that, past the deadline, the new version itself puts the previous template back (the old
 * pod, which would have, is gone once the new one turned Ready).
 */
export async function settleOwnUpgrade(o: SelfUpgrade, heartbeatAccepted: boolean): Promise<void> {
  const record = await o.records.loadUpgrade();
  if (!record || record.version !== o.agentVersion || record.failed) return;
  if (heartbeatAccepted) {
    await o.records.saveUpgrade(null);
    o.log("info", "UPGRADE_CONFIRMED", `version ${o.agentVersion} heartbeats: the upgrade is done`, { id: record.directiveId });
    return;
  }
  if (o.now < record.deadline) return;
  const path = `/apis/apps/v1/namespaces/${o.namespace}/deployments/${o.deployment}`;
  const deployment = (await o.client.request("getDeployment", path)).body as Deployment;
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  const container = containers.find((c) => c.name === "agent") ?? containers[0];
  await applyDeployment(o, rollbackBody(o, recordedInstall(deployment), container?.name ?? "agent", record));
  // Kept, marked: the restored agent fails the directive with this instead of starting it again.
  await o.records.saveUpgrade({
    ...record,
    failed: `version ${o.agentVersion} had no heartbeat accepted by the fleet within ${Math.round((record.deadline - record.startedAt) / 1000)} s: it restored the previous image ${record.previousImage}`,
  });
  o.log("warn", "UPGRADE_ROLLED_BACK", `no heartbeat accepted by the deadline: restored ${record.previousImage}`, {
    id: record.directiveId,
  });
}

/** Records kept in memory, for an agent whose state is not in the cluster (a laptop's state dir). */
export function memoryUpgradeRecords(): UpgradeRecords {
  let record: UpgradeRecord | null = null;
  return {
    loadUpgrade: async () => record,
    saveUpgrade: async (r) => void (record = r),
  };
}
