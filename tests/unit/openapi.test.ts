import assert from "node:assert/strict";
import { test } from "node:test";
import { openApiDocument } from "@/lib/server/openapi";

test("the OpenAPI document covers the fixed protocol paths with their zod request schemas", () => {
  const doc = openApiDocument() as {
    openapi: string;
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
          parameters?: { name: string }[];
        }
      >
    >;
  };
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
  const register = doc.paths["/api/agent/v1/register"]!.post!.requestBody!.content["application/json"]!.schema;
  assert.deepEqual(Object.keys(register.properties ?? {}).sort(), [
    "agentVersion",
    "apiServerUrl",
    "caFingerprint",
    "csr",
    "kubernetesVersion",
    "labels",
    "name",
  ]);
  assert.ok(register.required?.includes("csr"));
  const mint = doc.paths["/api/v1/registration-tokens"]!.post!.requestBody!.content["application/json"]!.schema;
  assert.ok("ttlSeconds" in (mint.properties ?? {}));
  const list = doc.paths["/api/v1/clusters"]!.get!.parameters!.map((p) => p.name);
  for (const q of ["status", "selector", "group", "q", "limit", "cursor"]) assert.ok(list.includes(q), q);
  const gate = doc.paths["/api/v1/gate"]!.get!.parameters!.map((p) => p.name);
  assert.deepEqual(gate.sort(), ["group", "selector"]);
});
