import "server-only";
import https from "node:https";
import {
  ApiException,
  createConfiguration,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  ServerConfiguration,
  setHeaderOptions,
  type RequestContext,
  type SecurityAuthentication,
} from "@kubernetes/client-node";
import {
  CLUSTER_MANAGER,
  CLUSTER_MANAGER_LABEL,
  CLUSTER_PROFILE_GROUP,
  CLUSTER_PROFILE_PLURAL,
  CLUSTER_PROFILE_VERSION,
  type ClusterProfile,
} from "@/lib/domain/cluster-profiles";
import type { HubKubeconfig } from "@/lib/domain/kubeconfig";
import { connectionFailure, pinnedLookup, type CheckedAddress } from "@/lib/server/net/pinned-address";
import { TargetRefused } from "@/lib/server/webhooks/post-webhook";
import { HubError } from "./hub-error";
import { resolveHubTarget } from "./hub-target";

// The exporter's way into the hub: @kubernetes/client-node's CustomObjectsApi with the hub
// kubeconfig. Writes are server-side apply (application/apply-patch+yaml, our field manager,
// force: we own these fields), the status through its subresource, as the standard expects of a
// cluster manager. Heavy (~100 packages, ~70 MB of memory once loaded): the background job imports it
// only when an export is configured, and no route imports it.

export const FIELD_MANAGER = "fleet-registry";
const REQUEST_TIMEOUT_MS = 15_000;
const APPLY = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);

const REASONS: Record<number, string> = { 401: "unauthorized", 403: "forbidden", 404: "not_found" };
// What the admin can do about it. The hub's own answer body is never kept or shown: it is the
// hub's text (or whatever answers at that address), and it lands in the admin-visible last error
// and the log.
const HINTS: Record<number, string> = {
  401: " (the hub refused the kubeconfig's credentials: paste a kubeconfig with a valid token or certificate)",
  403: " (the kubeconfig's user may not write clusterprofiles and clusterprofiles/status in this namespace: see docs/integrations/cluster-profiles.md)",
  404: " (is the ClusterProfile CRD, clusterprofiles.multicluster.x-k8s.io, installed on the hub, and does the namespace exist?)",
};

function hubError(err: unknown, what: string): HubError {
  if (err instanceof HubError) return err;
  if (err instanceof TargetRefused) return new HubError("target_not_allowed", err.message);
  if (err instanceof ApiException) {
    const code = err.code;
    return new HubError(REASONS[code] ?? `http_${code}`, `The hub answered ${what} with HTTP ${code}${HINTS[code] ?? ""}`);
  }
  return new HubError("network", `The hub could not be reached for ${what} (${connectionFailure(err)})`);
}

async function call<T>(what: string, request: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HubError("timeout", `The hub did not answer ${what} within ${REQUEST_TIMEOUT_MS / 1000} s`)),
      REQUEST_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([request(), timeout]);
  } catch (err) {
    throw hubError(err, what);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The kubeconfig's authentication with one keep-alive connection pool: client-node makes a new
 * https.Agent (so a new TLS handshake) for every request; only the agent, built from the same TLS
 * options, is kept. Before each request the hub's host is resolved and checked (hubAllowPrivateTargets),
 * and new connections go to that checked address, never to another lookup's answer (DNS rebinding).
 */
function checkedKeepAlive(config: KubeConfig, server: URL, allowPrivate: boolean): SecurityAuthentication & { close(): void } {
  let agent: https.Agent | null = null;
  let target: CheckedAddress | null = null;
  const lookup = pinnedLookup(() => target);
  return {
    close: () => agent?.destroy(),
    getName: () => "kubeconfig authentication, checked address, keep-alive",
    async applySecurityAuthentication(context: RequestContext) {
      target = await resolveHubTarget(server.hostname, allowPrivate);
      await config.applySecurityAuthentication(context);
      const fresh = context.getAgent();
      if (!(fresh instanceof https.Agent)) return;
      agent ??= new https.Agent({ ...fresh.options, keepAlive: true, maxSockets: 4, lookup });
      context.setAgent(agent);
      fresh.destroy();
    },
  };
}

export class HubClient {
  private readonly api: CustomObjectsApi;
  /** Closes the kept-alive connections. */
  readonly close: () => void;
  private readonly target: { group: string; version: string; namespace: string; plural: string };

  /** `hub` is a checked kubeconfig (lib/domain/kubeconfig.ts): client-node sees only its inline credentials. */
  constructor(hub: HubKubeconfig, namespace: string, allowPrivate: boolean) {
    const config = new KubeConfig();
    config.loadFromClusterAndUser(
      {
        name: "hub",
        server: hub.server,
        caData: hub.cluster.caData,
        tlsServerName: hub.cluster.tlsServerName,
        skipTLSVerify: false,
      },
      { name: "hub", token: hub.user.token, certData: hub.user.certData, keyData: hub.user.keyData },
    );
    const auth = checkedKeepAlive(config, new URL(hub.server), allowPrivate);
    this.close = auth.close;
    this.api = new CustomObjectsApi(
      createConfiguration({ baseServer: new ServerConfiguration(hub.server, {}), authMethods: { default: auth } }),
    );
    this.target = { group: CLUSTER_PROFILE_GROUP, version: CLUSTER_PROFILE_VERSION, namespace, plural: CLUSTER_PROFILE_PLURAL };
  }

  /** Applies labels, annotations and spec; answers the object's generation on the hub. */
  async applyObject(profile: ClusterProfile): Promise<number | undefined> {
    const { status: _status, ...object } = profile;
    const body = { ...object, metadata: { ...object.metadata, namespace: this.target.namespace } };
    const applied = (await call(`the apply of ClusterProfile ${profile.metadata.name}`, () =>
      this.api.patchNamespacedCustomObject(
        { ...this.target, name: profile.metadata.name, body, fieldManager: FIELD_MANAGER, force: true },
        APPLY,
      ),
    )) as { metadata?: { generation?: number } } | undefined;
    return applied?.metadata?.generation;
  }

  /** Applies the status through the status subresource. */
  async applyStatus(profile: ClusterProfile): Promise<void> {
    const body = {
      apiVersion: profile.apiVersion,
      kind: profile.kind,
      metadata: { name: profile.metadata.name, namespace: this.target.namespace },
      status: profile.status,
    };
    await call(`the status apply of ClusterProfile ${profile.metadata.name}`, () =>
      this.api.patchNamespacedCustomObjectStatus(
        { ...this.target, name: profile.metadata.name, body, fieldManager: FIELD_MANAGER, force: true },
        APPLY,
      ),
    );
  }

  /** Deletes a profile; one already gone counts as deleted. */
  async delete(name: string): Promise<void> {
    try {
      await call(`the delete of ClusterProfile ${name}`, () => this.api.deleteNamespacedCustomObject({ ...this.target, name }));
    } catch (err) {
      // A missing object is what a delete wants (a missing CRD shows on the next apply or list).
      if (!(err instanceof HubError && err.reason === "not_found")) throw err;
    }
  }

  /** The names of the profiles on the hub that this fleet manages (label x-k8s.io/cluster-manager=fleet-registry). */
  async listManagedNames(): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = (await call("the list of ClusterProfiles", () =>
        this.api.listNamespacedCustomObject({
          ...this.target,
          labelSelector: `${CLUSTER_MANAGER_LABEL}=${CLUSTER_MANAGER}`,
          limit: 500,
          _continue: token,
        }),
      )) as { items?: { metadata?: { name?: string } }[]; metadata?: { continue?: string } };
      for (const item of page.items ?? []) if (item.metadata?.name) names.push(item.metadata.name);
      token = page.metadata?.continue || undefined;
    } while (token);
    return names;
  }
}
