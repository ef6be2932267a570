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
