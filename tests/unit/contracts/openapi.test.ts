import assert from "node:assert/strict";
import { test } from "node:test";
import { FLEET_EVENT_TYPES, fleetEventSchema } from "@/lib/contracts/events";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import { openApiDocument } from "@/lib/server/openapi";
import { PROTOCOL_HANDLERS } from "@/lib/server/agent-port/protocol-handlers";

type Schema = { properties?: Record<string, Schema>; required?: string[]; minLength?: number; maxLength?: number };
type Operation = {
  description?: string;
  requestBody?: { content: Record<string, { schema: Schema }> };
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, Operation>> };
const op = (path: string, method: string) => doc.paths[path]?.[method];
const body = (path: string, method: string) => op(path, method)!.requestBody!.content["application/json"]!.schema;

test("every entry of the agent protocol's handler table is in the document with its credential and status", () => {
  const security = { public: [], token: [{ registrationToken: [] }], certificate: [{ clientCertificate: [] }] };
  for (const h of PROTOCOL_HANDLERS) {
    const o = op(h.path, h.method.toLowerCase()) as (Operation & { security?: unknown; summary?: string }) | undefined;
    assert.ok(o, `${h.method} ${h.path}`);
    assert.equal(o.summary, h.summary);
    assert.deepEqual(o.security, security[h.auth], h.path);
    assert.ok(o.responses[String(h.okStatus ?? 200)], `${h.path} answers ${h.okStatus ?? 200}`);
    assert.equal(Boolean(o.requestBody), Boolean(h.request), h.path);
  }
  assert.ok(op("/api/agent/v1/register", "post")!.responses["201"]);
});

test("the OpenAPI document covers the fixed protocol paths with their zod request schemas", () => {
  assert.equal(doc.openapi, "3.1.0");
  for (const p of [
    "/api/agent/v1/register",
    "/api/agent/v1/heartbeat",
    "/api/agent/v1/rotate",
    "/api/v1/registration-tokens",
    "/api/v1/clusters",
    "/api/v1/clusters/{id}",
    "/api/v1/clusters/{id}/deregistration",
    "/api/v1/gate",
    "/api/v1/settings",
  ]) {
    assert.ok(doc.paths[p], p);
  }
  const register = body("/api/agent/v1/register", "post");
  assert.deepEqual(Object.keys(register.properties ?? {}).sort(), [
    "agentVersion",
    "apiServerUrl",
    "caFingerprint",
    "clusterUid",
    "csr",
    "kubernetesVersion",
    "labels",
    "name",
  ]);
  assert.ok(register.required?.includes("csr"));
  assert.ok(!register.required?.includes("clusterUid"), "optional: older agents send none");
  assert.ok("ttlSeconds" in (body("/api/v1/registration-tokens", "post").properties ?? {}));
  const list = op("/api/v1/clusters", "get")!.parameters!.map((p) => p.name);
  for (const q of ["status", "selector", "group", "q", "limit", "cursor"]) assert.ok(list.includes(q), q);
  const gate = op("/api/v1/gate", "get")!.parameters!.map((p) => p.name);
  assert.deepEqual(gate.sort(), ["group", "ignoreNotReadyLongerThan", "maxUnready", "selector", "tolerateSnoozed"]);
});

test("every declared admin route is in the document once, with its role, body, query and success status", () => {
  const seen = new Set<string>();
  for (const c of ADMIN_ROUTES) {
    const key = `${c.method} ${c.path}`;
    assert.ok(!seen.has(key), `declared twice: ${key}`);
    seen.add(key);
    const o = op(c.path, c.method.toLowerCase());
    assert.ok(o, key);
    assert.equal(
      o.description,
      c.session
        ? `Requires the ${c.role} role or higher, signed in to the console: an API key is refused (403 session_required).`
        : `Requires the ${c.role} role or higher.`,
      key,
    );
    assert.equal(!!o.requestBody, !!c.body, `${key}: request body`);
    assert.ok(o.responses[String(c.status ?? 200)], `${key}: status`);
    assert.equal(!!o.responses[String(c.status ?? 200)]!.content, !!(c.response ?? c.events), `${key}: response schema`);
    const pathParams = (o.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
    assert.deepEqual(
      pathParams,
      [...c.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
      `${key}: path parameters`,
    );
  }
  const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
    p.startsWith("/api/v1/") ? Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`) : [],
  );
  assert.deepEqual(documented.sort(), [...seen].sort(), "no admin path the declarations do not have");
  assert.ok(seen.size >= 45, `${seen.size} admin handlers declared`);
});

test("the revoke body is the one the handler parses (a reason of 3 to 300 characters), not a bare string", () => {
  const revoke = body("/api/v1/clusters/{id}/certificate/revoke", "post");
  assert.deepEqual(revoke.required, ["reason"]);
  assert.equal(revoke.properties!.reason!.minLength, 3);
  assert.equal(revoke.properties!.reason!.maxLength, 300);
});

test("responses are documented from the same schemas: the cluster list item carries registeredAt", () => {
  const list = op("/api/v1/clusters", "get")!.responses["200"]!.content!["application/json"]!.schema;
  const item = (list.properties!.items as { items?: Schema }).items!;
  assert.ok(item.properties && "registeredAt" in item.properties);
  assert.ok(op("/api/v1/registration-tokens", "post")!.responses["201"]!.content, "the minted token's shape");
});

test("the wrapper's answer check: a reply missing a declared field is named, Dates count in their JSON form", async () => {
  const { replyProblem } = await import("@/lib/contracts/route");
  const { clusterRoutes } = await import("@/lib/contracts/clusters");
  const { tokenRoutes } = await import("@/lib/contracts/tokens");
  const facts = {
    agentUrl: "https://localhost:8443",
    agentUrls: ["https://localhost:8443"],
    caFingerprint: "sha256:00",
    caNotAfter: new Date("2027-01-01T00:00:00Z"),
    agentImage: "fleet-registry/agent:1.4.0",
    agentImageWarning: null,
    notReadyThresholdSeconds: 60,
    heartbeatIntervalSeconds: 15,
    requiredLabels: ["env"],
    requireApprovalByDefault: false,
  };
  assert.equal(replyProblem(tokenRoutes.fleet, facts), null);
  const { requiredLabels: _, ...drifted } = facts;
  assert.match(
    replyProblem(tokenRoutes.fleet, drifted) ?? "",
    /GET \/api\/v1\/fleet answered outside its contract: requiredLabels/,
  );
  assert.match(replyProblem(clusterRoutes.list, { items: [{ id: "c" }] }) ?? "", /items\.0\.name/);
});

test("the live event stream is documented from the union the bus and the console share", () => {
  const content = op("/api/v1/events", "get")!.responses["200"]!.content!;
  assert.deepEqual(Object.keys(content), ["text/event-stream"]);
  assert.deepEqual(content["text/event-stream"]!.schema, { $ref: "#/components/schemas/FleetEvent" });
  const components = (doc as unknown as { components: { schemas: Record<string, { oneOf?: Schema[]; anyOf?: Schema[] }> } })
    .components.schemas;
  const variants = components.FleetEvent!.oneOf ?? components.FleetEvent!.anyOf ?? [];
  const types = variants.map((v) => (v.properties!.type as { const?: string }).const);
  assert.deepEqual(types, [...FLEET_EVENT_TYPES]);
  assert.ok(types.includes("registration.requests"));
  const status = variants[types.indexOf("cluster.status")]!;
  assert.deepEqual([...status.required!].sort(), ["at", "clusterId", "from", "name", "reason", "to", "type"]);
  assert.equal(fleetEventSchema.options.length, variants.length);
});
