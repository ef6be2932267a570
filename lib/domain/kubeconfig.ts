import { parse } from "yaml";
import { MAX_KUBECONFIG_BYTES } from "./cluster-profiles";

// A pasted kubeconfig, checked before it is sealed and stored: the exporter uses its current
// context, so that context must name a cluster with an https server and a user. The server is
// what the console shows afterwards; the rest (tokens, keys) is never shown again.

type Named<T> = { name?: unknown } & T;
type Kubeconfig = {
  "current-context"?: unknown;
  contexts?: Named<{ context?: { cluster?: unknown; user?: unknown } }>[];
  clusters?: Named<{ cluster?: { server?: unknown } }>[];
  users?: Named<{ user?: unknown }>[];
};

export type KubeconfigSummary = { ok: true; server: string; context: string } | { ok: false; problem: string };

const byName = <T>(list: unknown, name: unknown): Named<T> | undefined =>
  Array.isArray(list) ? (list as Named<T>[]).find((e) => e && typeof e === "object" && e.name === name) : undefined;

export function summarizeKubeconfig(text: string): KubeconfigSummary {
  const fail = (problem: string): KubeconfigSummary => ({ ok: false, problem });
  if (Buffer.byteLength(text, "utf8") > MAX_KUBECONFIG_BYTES) return fail(`is larger than ${MAX_KUBECONFIG_BYTES / 1024} KiB`);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return fail("is not YAML");
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return fail("is not a kubeconfig (a YAML mapping)");
  const k = doc as Kubeconfig;
  const current = k["current-context"];
  if (typeof current !== "string" || !current) return fail("names no current-context");
  const context = byName<{ context?: { cluster?: unknown; user?: unknown } }>(k.contexts, current)?.context;
  if (!context) return fail(`has no context named "${current}"`);
  const cluster = byName<{ cluster?: { server?: unknown } }>(k.clusters, context.cluster)?.cluster;
  if (!cluster) return fail(`has no cluster named "${String(context.cluster)}" (current context "${current}")`);
  const server = cluster.server;
  if (typeof server !== "string") return fail("names no server for the current context's cluster");
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return fail(`server "${server}" is not a URL`);
  }
  if (url.protocol !== "https:") return fail(`server "${server}" is not https`);
  if (!byName(k.users, context.user)) return fail(`has no user named "${String(context.user)}" (current context "${current}")`);
  return { ok: true, server: url.origin + url.pathname.replace(/\/$/, ""), context: current };
}
