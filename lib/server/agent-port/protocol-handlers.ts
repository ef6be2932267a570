import "server-only";
import type { z } from "zod";
import { heartbeatRequestSchema, registerRequestSchema, rotateRequestSchema } from "@/lib/domain/agent-protocol";
import type { AgentIdentity } from "./agent-identity";
import { caState } from "@/lib/server/pki/current-ca";
import { handleRegistration } from "@/lib/server/registration/registration-endpoint";
import { recordHeartbeat } from "@/lib/server/heartbeats/record-heartbeat";
import { rotateCertificate } from "@/lib/server/pki/rotate-certificate";
import { signingAdmission } from "./admission";
import { HEARTBEAT_SECONDS_BUCKETS } from "@/lib/server/metrics/fleet-metrics";

// The agent protocol (docs/protocol.md) as one table: every endpoint, who may call it, and the service
// that answers. The agent port and the Next route app/api/agent/v1/[...path] both dispatch
// through it (protocol-dispatch.ts), which enforces the agent-port rule, parses the credentials
// the entry's `auth` names and records its metrics; a handler only calls its service.

export type ProtocolReply = { status: number; body: unknown; headers?: Record<string, string> };

/** What the dispatcher hands every handler. */
export type ProtocolContext = {
  /** The socket peer as the custom server saw it (null when it did not say). */
  sourceAddress: string | null;
  /**
   * The JSON body (at most 64 KiB), read when first asked for: a handler may refuse before
   * reading it (registration's rate limit) and owns what a bad body means for it (its attempt log).
   */
  body(): Promise<unknown>;
};

/**
 * The credential each kind of endpoint gets, parsed by the dispatcher:
 * - public: none; answers on both ports.
 * - token: the registration token from `Authorization: Bearer`, null when none was sent (the
 *   service answers token_missing, so the attempt is logged like any other refusal).
 * - certificate: the verified client-certificate identity (mutual TLS or a trusted proxy's header).
 * Everything but public answers only on the agent port (421 agent_port_required elsewhere).
 */
export type Credentials = {
  public: object;
  token: { token: string | null };
  certificate: { agent: AgentIdentity };
};
export type AuthKind = keyof Credentials;

/** A counter by HTTP status and a duration histogram, recorded for every request the entry answers. */
export type EndpointMetrics = {
  counter: { name: string; help: string };
  duration: { name: string; help: string; buckets: number[] };
};

type Entry<A extends AuthKind> = {
  method: "GET" | "POST";
  path: `/api/agent/v1/${string}`;
  auth: A;
  /** For the OpenAPI document: what it does, the JSON body it takes, its success status (200 unless said). */
  summary: string;
  request?: z.ZodType;
  okStatus?: number;
  /** Certificates only: also accept one that chains to a fleet CA but has expired (rotate's renewal grace). */
  acceptExpired?: A extends "certificate" ? boolean : never;
  metrics?: EndpointMetrics;
  handle(ctx: ProtocolContext & Credentials[A]): Promise<ProtocolReply>;
};
export type ProtocolHandler = { [A in AuthKind]: Entry<A> }[AuthKind];

const ok = (body: unknown): ProtocolReply => ({ status: 200, body });

export const PROTOCOL_HANDLERS: readonly ProtocolHandler[] = [
  {
    // The fleet CA certificate, for agents that pin it by fingerprint. During a CA rollover a PEM
    // bundle: the CA of the agent port's server certificate first, then the incoming one.
    method: "GET",
    path: "/api/agent/v1/ca",
    auth: "public",
    summary: "The fleet CA certificate (PEM; during a CA rollover a bundle, the serving CA first)",
    handle: async () => {
      const state = await caState();
      return {
        status: 200,
        body: state.bundlePem,
        headers: {
          "content-type": "application/x-pem-file",
          "x-fleet-ca-fingerprint": state.serving.fingerprint,
          "cache-control": "public, max-age=60",
        },
      };
    },
  },
  {
    method: "POST",
    path: "/api/agent/v1/register",
    auth: "token",
    summary:
      "Register a cluster with a bootstrap token (202 pending_approval with Retry-After while a token that requires approval waits for an operator)",
    request: registerRequestSchema,
    okStatus: 201,
    handle: ({ token, sourceAddress, body }) => handleRegistration({ token, sourceAddress, readBody: body }),
  },
  {
    method: "POST",
    path: "/api/agent/v1/heartbeat",
    auth: "certificate",
    summary: "Report health and facts; receive status and directives",
    request: heartbeatRequestSchema,
    metrics: {
      counter: { name: "fleet_heartbeats_total", help: "Heartbeats answered by this instance, by HTTP status." },
      duration: {
        name: "fleet_heartbeat_duration_seconds",
        help: "Heartbeat handling time on this instance.",
        buckets: HEARTBEAT_SECONDS_BUCKETS,
      },
    },
    handle: async ({ agent, body }) => ok(await recordHeartbeat(agent, await body())),
  },
  {
    // Rotate, and only rotate, accepts a certificate expired less than the renewal grace ago.
    method: "POST",
    path: "/api/agent/v1/rotate",
    auth: "certificate",
    summary: "Get a new client certificate for a new key",
    request: rotateRequestSchema,
    acceptExpired: true,
    // Rotation signs like registration: it waits in the same admission queue (heartbeats never do).
    handle: async ({ agent, body }) => {
      const request = await body();
      return ok(await signingAdmission().run(() => rotateCertificate(agent, request)));
    },
  },
];
