import { parse } from "yaml";
import { MAX_KUBECONFIG_BYTES } from "./cluster-profiles";

// A pasted hub kubeconfig, checked before it is sealed and stored, and again before the exporter
// uses a stored one. A kubeconfig is also a program: `exec` and `auth-provider` run commands on the
// machine that reads it, `token-file` and the certificate and key paths read its files,
// `insecure-skip-tls-verify` turns off the hub's certificate check and `proxy-url` sends the
// connection elsewhere. The control plane is not the admin's laptop, so only inline credentials
// are taken (a token, a client certificate and key, the CA), every other field is refused by name,
// and the exporter is handed only what was taken here. The server is what the console shows
// afterwards; the rest (tokens, keys) is never shown again.

type Entry = Record<string, unknown>;

/** What the exporter connects with: the current context's https server and its inline credentials. */
export type HubKubeconfig = {
  /** the server as shown in the console: origin and path, no trailing slash */
  server: string;
  context: string;
  cluster: { caData?: string; tlsServerName?: string };
  user: { token?: string; certData?: string; keyData?: string };
};

export type KubeconfigCheck = ({ ok: true } & HubKubeconfig) | { ok: false; problem: string };

const TOP_LEVEL = new Set([
  "apiVersion",
  "kind",
  "preferences",
  "clusters",
  "contexts",
  "users",
  "current-context",
  "extensions",
]);
const CLUSTER_FIELDS = new Set(["server", "certificate-authority-data", "tls-server-name", "extensions"]);
const USER_FIELDS = new Set(["token", "client-certificate-data", "client-key-data", "extensions"]);
const CONTEXT_FIELDS = new Set(["cluster", "user", "namespace", "extensions"]);

// Why a field is refused, for the ones kubeconfigs carry in the wild; anything else is simply not taken.
const RUNS = "runs a program on this server";
const READS = "reads a file on this server";
const WHY: Record<string, string> = {
  exec: RUNS,
  "auth-provider": RUNS,
  "token-file": READS,
  tokenFile: READS,
  "client-certificate": READS,
  "client-key": READS,
  "certificate-authority": READS,
  "insecure-skip-tls-verify": "turns off the check of the hub's certificate",
  "proxy-url": "sends the connection through another host",
  username: "basic authentication is not supported",
  password: "basic authentication is not supported",
  as: "impersonation is not supported",
  "as-uid": "impersonation is not supported",
  "as-groups": "impersonation is not supported",
  "as-user-extra": "impersonation is not supported",
};

const isEntry = (v: unknown): v is Entry => !!v && typeof v === "object" && !Array.isArray(v);

/** The first field of `obj` outside `allowed`, as a refusal naming its path. */
function refusedField(obj: Entry, allowed: Set<string>, path: string): string | null {
  const field = Object.keys(obj).find((k) => !allowed.has(k));
  if (field === undefined) return null;
  const why = WHY[field] ?? "not a field the exporter takes";
  return `may not set ${path}${path ? "." : ""}${field} (${why}): only an https server and inline credentials are accepted (token, client-certificate-data, client-key-data, certificate-authority-data)`;
}

/** Every entry of a named list (clusters, users, contexts) checked against its allowed fields. */
function refusedInList(list: unknown, key: string, inner: string, allowed: Set<string>): string | null {
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list)) return `has a ${key} that is not a list`;
  for (const [i, entry] of list.entries()) {
    const path = `${key}[${i}]`;
    if (!isEntry(entry)) return `has a ${path} that is not a mapping`;
    const outer = refusedField(entry, new Set(["name", inner]), path);
    if (outer) return outer;
    const body = entry[inner];
    if (body === undefined || body === null) continue;
    if (!isEntry(body)) return `has a ${path}.${inner} that is not a mapping`;
    const problem = refusedField(body, allowed, `${path}.${inner}`);
    if (problem) return problem;
    for (const [field, value] of Object.entries(body))
      if (field !== "extensions" && typeof value !== "string") return `has a ${path}.${inner}.${field} that is not a string`;
  }
  return null;
}

const byName = (list: unknown, name: unknown): Entry | undefined =>
  Array.isArray(list) ? (list as unknown[]).find((e): e is Entry => isEntry(e) && e.name === name) : undefined;

export function checkHubKubeconfig(text: string): KubeconfigCheck {
  const fail = (problem: string): KubeconfigCheck => ({ ok: false, problem });
  if (Buffer.byteLength(text, "utf8") > MAX_KUBECONFIG_BYTES) return fail(`is larger than ${MAX_KUBECONFIG_BYTES / 1024} KiB`);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return fail("is not YAML");
  }
  if (!isEntry(doc)) return fail("is not a kubeconfig (a YAML mapping)");
  const refused =
    refusedField(doc, TOP_LEVEL, "") ??
    refusedInList(doc.clusters, "clusters", "cluster", CLUSTER_FIELDS) ??
    refusedInList(doc.users, "users", "user", USER_FIELDS) ??
    refusedInList(doc.contexts, "contexts", "context", CONTEXT_FIELDS);
  if (refused) return fail(refused);

  const current = doc["current-context"];
  if (typeof current !== "string" || !current) return fail("names no current-context");
  const context = byName(doc.contexts, current)?.context as Entry | undefined;
  if (!context) return fail(`has no context named "${current}"`);
  const cluster = byName(doc.clusters, context.cluster)?.cluster as Entry | undefined;
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
  if (url.username || url.password) return fail("server carries a user name or password in its URL");
  const userEntry = byName(doc.users, context.user);
  if (!userEntry) return fail(`has no user named "${String(context.user)}" (current context "${current}")`);
  const user = (userEntry.user ?? {}) as Record<string, string | undefined>;
  if (!user["client-certificate-data"] !== !user["client-key-data"])
    return fail("has a user with only one of client-certificate-data and client-key-data (both, or neither)");
  return {
    ok: true,
    server: url.origin + url.pathname.replace(/\/$/, ""),
    context: current,
    cluster: {
      caData: cluster["certificate-authority-data"] as string | undefined,
      tlsServerName: cluster["tls-server-name"] as string | undefined,
    },
    user: { token: user.token, certData: user["client-certificate-data"], keyData: user["client-key-data"] },
  };
}
