import { parseDirectives, type Directive } from "./directives";
import { BadResponseError } from "./errors";
import { firstPemBlock, pemCertificates } from "./csr";

// The wire format of docs/protocol.md as the agent sees it: paths, and tolerant parsing of answers
// (unknown fields are ignored, so a newer server does not break an older agent).

export const AGENT_API = {
  ca: "/api/agent/v1/ca",
  register: "/api/agent/v1/register",
  heartbeat: "/api/agent/v1/heartbeat",
  rotate: "/api/agent/v1/rotate",
} as const;

export interface RegisterAnswer {
  clusterId: string;
  certificate: string;
  caCertificate: string | null;
  heartbeatIntervalSeconds: number;
  heartbeatPath: string;
}

/** 202 to a registration (docs/protocol.md, Approval): an operator has to approve it first. */
export interface PendingApproval {
  requestId: string;
  /** How long to wait before asking again: Retry-After, else the body's retryAfterSeconds. */
  retryAfterMs: number;
  /** Where the operator approves it, when the server says. */
  consoleUrl: string | null;
}

/** When the server names no pace: the protocol leaves it to the server, so this only bounds a bad answer. */
export const DEFAULT_APPROVAL_POLL_MS = 30_000;
const MAX_APPROVAL_POLL_MS = 15 * 60_000;

export interface HeartbeatAnswer {
  status: string | null;
  heartbeatIntervalSeconds: number | null;
  desiredPolicyRevision: string | null;
  directives: Directive[];
  /** During a fleet CA rollover: every CA the control plane trusts, as a PEM bundle. */
  caBundle: string | null;
}

export const DEFAULT_INTERVAL_SECONDS = 30;

export function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** Only a same-server absolute path is followed, never another host. */
function safePath(value: unknown, fallback: string): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") ? value : fallback;
}

export function parseRegisterAnswer(body: unknown): RegisterAnswer {
  if (!isObject(body)) throw new BadResponseError("registration answer is not a JSON object");
  const { clusterId, certificate, caCertificate, heartbeatIntervalSeconds, heartbeatPath } = body;
  if (typeof clusterId !== "string" || !clusterId || clusterId.length > 200)
    throw new BadResponseError("registration answer has no clusterId");
  const cert = typeof certificate === "string" ? firstPemBlock(certificate) : null;
  if (!cert) throw new BadResponseError("registration answer has no PEM certificate");
  return {
    clusterId,
    certificate: cert,
    caCertificate: typeof caCertificate === "string" ? caCertificate : null,
    heartbeatIntervalSeconds:
      typeof heartbeatIntervalSeconds === "number" && heartbeatIntervalSeconds > 0
        ? heartbeatIntervalSeconds
        : DEFAULT_INTERVAL_SECONDS,
    heartbeatPath: safePath(heartbeatPath, AGENT_API.heartbeat),
  };
}

export function parsePendingApproval(body: unknown, retryAfterMs: number | undefined): PendingApproval {
  if (!isObject(body) || body.status !== "pending_approval")
    throw new BadResponseError("a 202 registration answer that is not pending_approval");
  const { requestId, retryAfterSeconds, consoleUrl } = body;
  if (typeof requestId !== "string" || !requestId || requestId.length > 200)
    throw new BadResponseError("the pending registration answer has no requestId");
  const fromBody = typeof retryAfterSeconds === "number" && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : undefined;
  const wait = retryAfterMs ?? fromBody ?? DEFAULT_APPROVAL_POLL_MS;
  return {
    requestId,
    retryAfterMs: Math.min(MAX_APPROVAL_POLL_MS, Math.max(1000, wait)),
    consoleUrl: typeof consoleUrl === "string" && /^https?:\/\//.test(consoleUrl) ? consoleUrl : null,
  };
}

export function parseHeartbeatAnswer(body: unknown): HeartbeatAnswer {
  if (!isObject(body)) throw new BadResponseError("heartbeat answer is not a JSON object");
  const revision = body.desiredPolicyRevision;
  return {
    status: typeof body.status === "string" ? body.status : null,
    heartbeatIntervalSeconds:
      typeof body.heartbeatIntervalSeconds === "number" && body.heartbeatIntervalSeconds > 0
        ? body.heartbeatIntervalSeconds
        : null,
    desiredPolicyRevision: typeof revision === "string" || typeof revision === "number" ? String(revision) : null,
    directives: parseDirectives(body.directives),
    caBundle: typeof body.caBundle === "string" && pemCertificates(body.caBundle).length ? body.caBundle : null,
  };
}
