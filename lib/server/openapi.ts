import "server-only";
import { z } from "zod";
import { heartbeatRequestSchema, registerRequestSchema, rotateRequestSchema } from "@/lib/domain/agent-protocol";
import { createApiKeySchema } from "@/lib/domain/api-keys";
import { compatibilityMatrixSchema } from "@/lib/domain/compatibility";
import { createGroupSchema, updateGroupSchema } from "@/lib/domain/groups";
import { createPolicySchema, newRevisionSchema, updatePolicySchema } from "@/lib/domain/policies";
import { createRolloutSchema, rolloutActionSchema } from "@/lib/domain/rollouts";
import { settingsPatchSchema } from "@/lib/domain/settings";
import { mintTokenSchema } from "@/lib/domain/tokens";
import { createUserSchema, updateUserSchema } from "@/lib/domain/users";
import { auditQuerySchema } from "@/lib/server/audit/list-audit";
import { attemptsQuerySchema } from "@/lib/server/clusters/registration-attempts";
import { listClustersQuerySchema } from "@/lib/server/clusters/list-clusters";
import { provisionClusterSchema } from "@/lib/server/clusters/provision-cluster";
import { updateClusterSchema } from "@/lib/server/clusters/update-cluster";
import { gateQuerySchema } from "@/lib/server/gate/evaluate-gate";
import { deregistrationActionSchema } from "@/lib/server/lifecycle/deregistration";

type Role = "viewer" | "operator" | "admin";
type Op = {
  summary: string;
  role?: Role;
  agent?: "token" | "certificate" | "public";
  body?: z.ZodType;
  query?: z.ZodType;
  ok?: number;
};

// The route table for the document: the same zod schemas the handlers parse with.
const PATHS: Record<string, Record<string, Op>> = {
  "/api/agent/v1/ca": {
    get: { summary: "The fleet CA certificate (PEM; during a CA rollover a bundle, the serving CA first)", agent: "public" },
  },
  "/api/agent/v1/register": {
    post: { summary: "Register a cluster with a bootstrap token", agent: "token", body: registerRequestSchema, ok: 201 },
  },
  "/api/agent/v1/heartbeat": {
    post: {
      summary: "Report health and facts; receive status and directives",
      agent: "certificate",
      body: heartbeatRequestSchema,
    },
  },
  "/api/agent/v1/rotate": {
    post: { summary: "Get a new client certificate for a new key", agent: "certificate", body: rotateRequestSchema },
  },
  "/api/v1/registration-tokens": {
    get: { summary: "List registration tokens", role: "viewer" },
    post: {
      summary:
        "Mint a registration token (shown once); with `clusterId` it is bound to that cluster (re-enrolment or claiming a pre-created one; 404 for an unknown id)",
      role: "operator",
      body: mintTokenSchema,
      ok: 201,
    },
  },
  "/api/v1/registration-tokens/{id}": { delete: { summary: "Revoke a registration token", role: "operator" } },
  "/api/v1/registration-attempts": {
    get: { summary: "Registration attempts, newest first", role: "viewer", query: attemptsQuerySchema },
  },
  "/api/v1/clusters": {
    get: {
      summary:
        "List clusters (filter, sort, paginate); `total` is exact for a selector alone, capped at 1,000 (`totalCapped`) otherwise",
      role: "viewer",
      query: listClustersQuerySchema,
    },
    post: {
      summary:
        "Pre-create a cluster (phase Provisioning) and mint the token bound to it that claims it (`registrationToken`, shown once)",
      role: "operator",
      body: provisionClusterSchema,
      ok: 201,
    },
  },
  "/api/v1/clusters/{id}": {
    get: { summary: "A cluster with identity, pools, certificate, enrollment and events", role: "viewer" },
    patch: { summary: "Replace descriptive labels (identity fields are immutable)", role: "operator", body: updateClusterSchema },
  },
  "/api/v1/clusters/{id}/heartbeats": { get: { summary: "Heartbeats per minute (gaps are zeros)", role: "viewer" } },
  "/api/v1/clusters/{id}/certificate/revoke": {
    post: { summary: "Revoke the cluster's certificates", role: "operator", body: z.object({ reason: z.string() }) },
  },
  "/api/v1/clusters/{id}/deregistration": {
    get: { summary: "The drain-then-deregister wizard's state", role: "viewer" },
    post: {
      summary: "Advance the wizard: start, confirm-workloads, disconnect, remove, cancel",
      role: "operator",
      body: deregistrationActionSchema,
    },
  },
  "/api/v1/clusters/{id}/node-pools/{pool}/retire": {
    post: { summary: "Retire a node pool (drainNodePool directive)", role: "operator" },
  },
  "/api/v1/groups": {
    get: { summary: "Cluster groups with ready/not-ready counts", role: "viewer" },
    post: { summary: "Create a group", role: "operator", body: createGroupSchema, ok: 201 },
  },
  "/api/v1/groups/{id}": {
    get: { summary: "A group", role: "viewer" },
    patch: { summary: "Edit a group", role: "operator", body: updateGroupSchema },
    delete: { summary: "Delete a group", role: "operator", ok: 204 },
  },
  "/api/v1/policies": {
    get: { summary: "Policies with their revisions and targets", role: "viewer" },
    post: { summary: "Create a policy (revision 1)", role: "operator", body: createPolicySchema, ok: 201 },
  },
  "/api/v1/policies/{id}": {
    get: { summary: "A policy", role: "viewer" },
    patch: { summary: "Edit description and target groups", role: "operator", body: updatePolicySchema },
    delete: { summary: "Delete a policy", role: "operator", ok: 204 },
  },
  "/api/v1/policies/{id}/revisions": {
    post: { summary: "Publish a new revision", role: "operator", body: newRevisionSchema, ok: 201 },
  },
  "/api/v1/rollouts": {
    get: { summary: "Agent upgrade rollouts", role: "viewer" },
    post: { summary: "Start a staged agent upgrade", role: "operator", body: createRolloutSchema, ok: 201 },
  },
  "/api/v1/rollouts/{id}": { get: { summary: "A rollout with per-stage progress", role: "viewer" } },
  "/api/v1/rollouts/{id}/actions": { post: { summary: "Pause, resume or abort", role: "operator", body: rolloutActionSchema } },
  "/api/v1/versions": { get: { summary: "Version distribution and flagged clusters", role: "viewer" } },
  "/api/v1/compatibility": {
    get: { summary: "The compatibility matrix in force", role: "viewer" },
    put: { summary: "Replace the compatibility matrix", role: "admin", body: compatibilityMatrixSchema },
    delete: { summary: "Return to the shipped matrix", role: "admin" },
  },
  "/api/v1/node-pools": { get: { summary: "Fleet capacity by a label", role: "viewer" } },
  "/api/v1/gate": { get: { summary: "Pipeline change gate", role: "viewer", query: gateQuerySchema } },
  "/api/v1/overview": { get: { summary: "Fleet overview", role: "viewer" } },
  "/api/v1/fleet": { get: { summary: "Agent URL, CA fingerprint and fleet settings an agent needs", role: "viewer" } },
  "/api/v1/events": { get: { summary: "Live events (text/event-stream)", role: "viewer" } },
  "/api/v1/audit": { get: { summary: "The audit log", role: "operator", query: auditQuerySchema } },
  "/api/v1/ca": { get: { summary: "The fleet CAs (fingerprint, expiry, state) and a rollover's progress", role: "viewer" } },
  "/api/v1/ca/rollover": {
    post: { summary: "Start a fleet CA rollover (a new CA signs; agents rotate onto it)", role: "admin" },
  },
  "/api/v1/ca/retire": {
    post: { summary: "Retire the old fleet CA once no current certificate chains to it (409 before)", role: "admin" },
  },
  "/api/v1/settings": {
    get: { summary: "Fleet settings", role: "admin" },
    patch: { summary: "Change fleet settings", role: "admin", body: settingsPatchSchema },
  },
  "/api/v1/api-keys": {
    get: { summary: "API keys, with their creator and the role they act with", role: "admin" },
    post: {
      summary: "Mint an API key (shown once; a signed-in admin only: a key cannot mint keys)",
      role: "admin",
      body: createApiKeySchema,
      ok: 201,
    },
  },
  "/api/v1/api-keys/{id}": { delete: { summary: "Revoke an API key", role: "admin" } },
  "/api/v1/users": {
    get: { summary: "Console users", role: "admin" },
    post: { summary: "Add a user", role: "admin", body: createUserSchema, ok: 201 },
  },
  "/api/v1/users/{id}": {
    patch: {
      summary: "Change a user's role, password (ends their sessions) or disable them (and their API keys)",
      role: "admin",
      body: updateUserSchema,
    },
  },
  "/api/healthz": { get: { summary: "Liveness", agent: "public" } },
  "/api/readyz": { get: { summary: "Readiness: database reachable, migrations applied", agent: "public" } },
  "/api/metrics": {
    get: { summary: "Prometheus metrics (Bearer METRICS_TOKEN when set, else loopback clients only)", agent: "public" },
  },
};

const jsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });

function queryParameters(schema: z.ZodType) {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: "query",
    required: js.required?.includes(name) ?? false,
    schema: s,
  }));
}

let cached: object | undefined;

export function openApiDocument(): object {
  if (cached) return cached;
  const paths: Record<string, Record<string, object>> = {};
  for (const [path, ops] of Object.entries(PATHS)) {
    paths[path] = {};
    for (const [method, op] of Object.entries(ops)) {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      }));
      paths[path][method] = {
        summary: op.summary,
        ...(op.role
          ? { description: `Requires the ${op.role} role or higher.`, security: [{ session: [] }, { apiKey: [] }] }
          : {}),
        ...(op.agent === "token" ? { security: [{ registrationToken: [] }] } : {}),
        ...(op.agent === "certificate"
          ? {
              description: "Mutual TLS on the agent port with the certificate issued at registration.",
              security: [{ clientCertificate: [] }],
            }
          : {}),
        ...(op.agent === "public" ? { security: [] } : {}),
        parameters: [...params, ...(op.query ? queryParameters(op.query) : [])],
        ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } } } : {}),
        responses: {
          [String(op.ok ?? 200)]: { description: "Success" },
          default: { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        },
      };
    }
  }
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Fleet Registry API",
      version: "1",
      description:
        "The admin API (/api/v1) and the agent protocol (/api/agent/v1; register, heartbeat and rotate only on the agent port, 421 agent_port_required elsewhere). See PROTOCOL.md.",
    },
    paths,
    components: {
      schemas: {
        Error: {
          type: "object",
          required: ["error", "message"],
          properties: { error: { type: "string", description: "A stable error code" }, message: { type: "string" }, details: {} },
        },
      },
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: "next-auth.session-token",
          description: "Console session; mutations must be same-origin.",
        },
        apiKey: { type: "http", scheme: "bearer", description: "An API key (frk_...) minted by an admin." },
        registrationToken: { type: "http", scheme: "bearer", description: "A registration token (frt_...)." },
        clientCertificate: { type: "mutualTLS", description: "Client certificate from the fleet CA, on the agent port." },
      },
    },
  };
  return cached;
}
