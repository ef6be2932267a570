import type { TokenSource } from "../agent";
import { certificateMatchesKey } from "../csr";
import { AGENT_REMOVE_COMMAND } from "../../domain/agent-kube-calls";
import {
  StateError,
  StateUnavailableError,
  TombstoneError,
  type AgentState,
  type ClusterRecord,
  type StateStore,
  type Tombstone,
} from "../state";
import { errorText } from "../../domain/error-text";
import { backoffDelay } from "../backoff";
import { KubeApiError, type KubeClient } from "./kube-client";
import { parseUpgradeRecord, type UpgradeRecord, type UpgradeRecords } from "./self-upgrade";
import { isTransientKubeError } from "./transient";

// In a cluster the agent's identity (key, certificate, fleet CA, cluster id) lives in a Secret the
// manifest creates empty (RBAC cannot limit `create` by name, so the agent only gets get/update/
// delete on that one Secret). A pod rescheduled to another node keeps its identity: no volume.

const KEYS = {
  key: "key.pem",
  cert: "cert.pem",
  ca: "ca.pem",
  cluster: "cluster.json",
  pendingKey: "pending-key.pem",
  tombstone: "tombstone.json",
  upgrade: "upgrade.json",
} as const;

/** Attempts of one write against concurrent updates (409 Conflict), and the wait between them. */
export const CONFLICT_RETRIES = 5;
const CONFLICT_BACKOFF = { baseMs: 50, capMs: 1_000 };

export interface SecretRef {
  namespace: string;
  name: string;
}

/** `ns/name` as the flags take it. */
export function parseSecretRef(value: string): SecretRef | null {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  return match ? { namespace: match[1]!, name: match[3]! } : null;
}

type SecretObject = {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; [k: string]: unknown };
  type?: string;
  data?: Record<string, string>;
};

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string | undefined) => (s === undefined ? undefined : Buffer.from(s, "base64").toString("utf8"));

export class SecretStateStore implements StateStore, UpgradeRecords {
  constructor(
    private readonly client: KubeClient,
    private readonly ref: SecretRef,
    /** When given, writes are refused unless this agent holds the Lease (one writer). */
    private readonly lease?: { readonly held: boolean },
  ) {}

  get location() {
    return `Secret ${this.ref.namespace}/${this.ref.name}`;
  }

  private path() {
    return `/api/v1/namespaces/${this.ref.namespace}/secrets/${this.ref.name}`;
  }

  /** A busy or restarting API server is StateUnavailableError (retried); a refusal stays what it is. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isTransientKubeError(err)) throw new StateUnavailableError(`${this.location} cannot be reached now: ${errorText(err)}`);
      throw err;
    }
  }

  private async read(): Promise<SecretObject> {
    const res = await this.call(() => this.client.request("getStateSecret", this.path(), { allow: [404] }));
    if (res.status === 404) {
      throw new StateError(`${this.location} does not exist: the manifest creates it empty (kubectl apply it again)`);
    }
    return res.body as SecretObject;
  }

  /**
   * Replaces the Secret's data: update with the read resourceVersion, so a concurrent write makes
   * ours fail with 409 instead of being lost; then re-read, apply the change again and retry (as
   * client-go's RetryOnConflict does), a few times with backoff.
   */
  private async write(change: (data: Record<string, string>) => Record<string, string>): Promise<void> {
    if (this.lease && !this.lease.held) throw new Error(`this agent does not hold the Lease: it does not write ${this.location}`);
    for (let attempt = 0; ; attempt++) {
      const secret = await this.read();
      const data = change({ ...(secret.data ?? {}) });
      try {
        await this.call(() =>
          this.client.request("updateStateSecret", this.path(), {
            body: { apiVersion: "v1", kind: "Secret", metadata: secret.metadata, type: secret.type ?? "Opaque", data },
          }),
        );
        return;
      } catch (err) {
        if (!(err instanceof KubeApiError && err.status === 409) || attempt + 1 >= CONFLICT_RETRIES) throw err;
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, Math.random, CONFLICT_BACKOFF)));
      }
    }
  }

  async load(): Promise<AgentState | null> {
    const data = (await this.read()).data ?? {};
    const tombstoneText = unb64(data[KEYS.tombstone]);
    if (tombstoneText) {
      let tombstone: Tombstone;
      try {
        tombstone = JSON.parse(tombstoneText) as Tombstone;
      } catch {
        throw new StateError(`${this.location}: tombstone.json is not valid JSON`);
      }
      const ns = this.ref.namespace;
      throw new TombstoneError(
        tombstone,
        `this cluster (${tombstone.name}, ${tombstone.clusterId ?? "no id"}) was ${tombstone.reason} from the fleet at ${tombstone.at}: idling instead of registering again. Remove the agent with: ${AGENT_REMOVE_COMMAND.replace("namespace fleet-system", `namespace ${ns}`)} ; or, to register the cluster again, delete the Secret ${ns}/${this.ref.name} and apply a manifest with a new token`,
      );
    }
    const clusterText = unb64(data[KEYS.cluster]);
    if (!clusterText) return null;
    const keyPem = unb64(data[KEYS.key]);
    const certPem = unb64(data[KEYS.cert]);
    const caPem = unb64(data[KEYS.ca]);
    if (!keyPem || !certPem || !caPem)
      throw new StateError(`${this.location} has cluster.json but not key.pem, cert.pem and ca.pem`);
    let cluster: ClusterRecord;
    try {
      cluster = JSON.parse(clusterText) as ClusterRecord;
    } catch {
      throw new StateError(`${this.location}: cluster.json is not valid JSON`);
    }
    if (typeof cluster?.clusterId !== "string" || !cluster.clusterId)
      throw new StateError(`${this.location}: cluster.json has no clusterId`);
    if (!certificateMatchesKey(certPem, keyPem)) throw new StateError(`${this.location}: cert.pem does not belong to key.pem`);
    return { keyPem, certPem, caPem, cluster: { ...cluster, appliedPolicyRevision: cluster.appliedPolicyRevision ?? null } };
  }

  async save(state: AgentState): Promise<void> {
    // A whole new identity, but an upgrade in progress stays: it is how the way back is found.
    await this.write((data) => ({
      ...(data[KEYS.upgrade] ? { [KEYS.upgrade]: data[KEYS.upgrade] } : {}),
      [KEYS.key]: b64(state.keyPem),
      [KEYS.cert]: b64(state.certPem),
      [KEYS.ca]: b64(state.caPem),
      [KEYS.cluster]: b64(JSON.stringify(state.cluster)),
    }));
  }

  /** One update carries both: the Secret never holds a key with another key's certificate. */
  async saveIdentity(keyPem: string, certPem: string): Promise<void> {
    await this.write((data) => ({ ...data, [KEYS.key]: b64(keyPem), [KEYS.cert]: b64(certPem) }));
  }

  async saveCluster(cluster: ClusterRecord): Promise<void> {
    await this.write((data) => ({ ...data, [KEYS.cluster]: b64(JSON.stringify(cluster)) }));
  }

  async loadPendingKey(): Promise<string | null> {
    return unb64((await this.read()).data?.[KEYS.pendingKey]) ?? null;
  }

  async savePendingKey(keyPem: string): Promise<void> {
    await this.write((data) => ({ ...data, [KEYS.pendingKey]: b64(keyPem) }));
  }

  /** The upgrade in progress: the pod template to restore if the new pod never becomes Ready. */
  async loadUpgrade(): Promise<UpgradeRecord | null> {
    const text = unb64((await this.read()).data?.[KEYS.upgrade]);
    return text ? parseUpgradeRecord(text) : null;
  }

  async saveUpgrade(record: UpgradeRecord | null): Promise<void> {
    await this.write((data) => {
      const { [KEYS.upgrade]: _previous, ...rest } = data;
      return record ? { ...rest, [KEYS.upgrade]: b64(JSON.stringify(record)) } : rest;
    });
  }

  /**
   * Replaces the credentials with a tombstone rather than deleting the Secret: GitOps re-applying
   * the manifest would bring back an empty Secret and the used token, and the agent would
   * crash-loop on a refused registration. An apply keeps data it did not set.
   */
  async destroy(tombstone?: Tombstone): Promise<void> {
    const data: Record<string, string> = tombstone ? { [KEYS.tombstone]: b64(JSON.stringify(tombstone)) } : {};
    await this.write(() => data);
  }
}

/** The registration token from its own Secret (key `token`), deleted through the API once used. */
export function secretTokenSource(client: KubeClient, ref: SecretRef): TokenSource {
  const path = `/api/v1/namespaces/${ref.namespace}/secrets/${ref.name}`;
  return {
    describe: `Secret ${ref.namespace}/${ref.name}`,
    async read() {
      const res = await client.request("getTokenSecret", path, { allow: [404] });
      if (res.status === 404) return null;
      return unb64((res.body as SecretObject).data?.token)?.trim() || null;
    },
    async consumed() {
      await client.request("deleteTokenSecret", path, { allow: [404] });
    },
  };
}
