import { KubeApiError, KubeTimeoutError } from "./kube-client";

// Which failures of a Kubernetes API call pass by themselves: the API server busy or restarting
// (5xx), throttling (429: client-side as API Priority and Fairness answers it), no answer in time,
// a connection refused or dropped while it restarts. Retried with backoff. A refusal (401 a
// token the API server does not accept, 403 RBAC, 404 a missing namespace or object) does not
// pass by waiting: the caller reports it as configuration.

const TRANSIENT_NET = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

export function isTransientKubeError(err: unknown): boolean {
  if (err instanceof KubeApiError) return err.status >= 500 || err.status === 429;
  if (err instanceof KubeTimeoutError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && TRANSIENT_NET.has(code)) return true;
  return /socket hang up/i.test((err as Error | null)?.message ?? "");
}
