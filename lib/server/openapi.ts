import "server-only";
import { z } from "zod";
import { fleetEventSchema } from "@/lib/contracts/events";
import type { RouteContract } from "@/lib/contracts/route";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import type { Role } from "@/lib/domain/roles";
import { PROTOCOL_HANDLERS } from "@/lib/server/agent-port/protocol-handlers";
import { webhookPayloadSchema } from "@/lib/domain/webhooks";

type Op = {
  summary: string;
  role?: Role;
  session?: true;
  agent?: "token" | "certificate" | "public";
  body?: z.ZodType;
  query?: z.ZodType;
  response?: z.ZodType;
  events?: z.ZodType;
  ok?: number;
};

// The public probes, written here. The agent protocol comes from its handler table and the admin
// API from its declarations (lib/contracts): the same tables the handlers are dispatched from.
const PROBES: Record<string, Record<string, Op>> = {
  "/api/healthz": { get: { summary: "Liveness", agent: "public" } },
  "/api/readyz": { get: { summary: "Readiness: database reachable, migrations applied", agent: "public" } },
  "/api/metrics": {
    get: {
      summary:
        "Prometheus metrics (Bearer METRICS_TOKEN; without one, loopback clients of a loopback-only server). 421 host_not_served for a Host the server is not known by",
      agent: "public",
    },
  },
};

function adminOp(c: RouteContract): Op {
  return {
    summary: c.summary,
    role: c.role,
    session: c.session,
    body: c.body,
    query: c.query,
    response: c.response,
    events: c.events,
    ok: c.status,
  };
}

/** Every path: the agent protocol's, the probes', then each declared admin route. */
function allPaths(): Record<string, Record<string, Op>> {
  const paths: Record<string, Record<string, Op>> = {};
  for (const h of PROTOCOL_HANDLERS)
    (paths[h.path] ??= {})[h.method.toLowerCase()] = { summary: h.summary, agent: h.auth, body: h.request, ok: h.okStatus };
  for (const [path, ops] of Object.entries(PROBES)) paths[path] = { ...ops };
  for (const c of ADMIN_ROUTES) (paths[c.path] ??= {})[c.method.toLowerCase()] = adminOp(c);
  return paths;
}

const jsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
const outputSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: "output", unrepresentable: "any" });

function queryParameters(schema: z.ZodType) {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: "query",
    required: js.required?.includes(name) ?? false,
    schema: s,
  }));
}

// Event stream data as named components (a client generator gives each its own type).
const EVENT_COMPONENTS = new Map<z.ZodType, string>([[fleetEventSchema, "FleetEvent"]]);
function eventComponent(schema: z.ZodType): string {
  const name = EVENT_COMPONENTS.get(schema);
  if (!name) throw new Error("an event stream's schema needs a component name in openapi.ts");
  return name;
}

let cached: object | undefined;

export function openApiDocument(): object {
  if (cached) return cached;
  const paths: Record<string, Record<string, object>> = {};
  for (const [path, ops] of Object.entries(allPaths())) {
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
        ...(op.role && op.session
          ? {
              description: `Requires the ${op.role} role or higher, signed in to the console: an API key is refused (403 session_required).`,
              security: [{ session: [] }],
            }
          : op.role
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
          [String(op.ok ?? 200)]: {
            description: "Success",
            ...(op.response ? { content: { "application/json": { schema: outputSchema(op.response) } } } : {}),
            ...(op.events
              ? {
                  content: {
                    "text/event-stream": {
                      description: "Each message is `event: <type>` with the event as its JSON data.",
                      schema: { $ref: `#/components/schemas/${eventComponent(op.events)}` },
                    },
                  },
                }
              : {}),
          },
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
        "The admin API (/api/v1) and the agent protocol (/api/agent/v1; register, heartbeat and rotate only on the agent port, 421 agent_port_required elsewhere). See docs/protocol.md.",
    },
    paths,
    components: {
      schemas: {
        Error: {
          type: "object",
          required: ["error", "message"],
          properties: { error: { type: "string", description: "A stable error code" }, message: { type: "string" }, details: {} },
        },
        ...Object.fromEntries([...EVENT_COMPONENTS].map(([schema, name]) => [name, outputSchema(schema)])),
        // What a webhook receiver is POSTed (format json), signed in X-Fleet-Signature-V2 (docs/integrations/webhooks.md).
        WebhookPayload: {
          ...outputSchema(webhookPayloadSchema),
          description:
            'The body of a json-format webhook delivery. Headers: X-Fleet-Timestamp: <Unix seconds when the attempt was sent>, X-Fleet-Signature-V2: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" under the subscription\'s secret> (refuse a timestamp more than 5 minutes from your clock), X-Fleet-Delivery: <id>, X-Fleet-Event: <type>; X-Fleet-Signature (HMAC of the body alone, replayable) only to a subscription with legacySignature. Format slack posts {"text": "..."} with the same headers.',
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
