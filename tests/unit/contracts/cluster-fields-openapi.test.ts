import assert from "node:assert/strict";
import { test } from "node:test";
import { openApiDocument } from "@/lib/server/openapi";

type Schema = { properties?: Record<string, Schema>; maxLength?: number; anyOf?: Schema[]; type?: unknown };
const doc = openApiDocument() as {
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
      }
    >
  >;
};

/** A property's own schema, through a nullable's anyOf. */
function maxLength(s: Schema | undefined): number | undefined {
  return s?.maxLength ?? s?.anyOf?.find((x) => x.maxLength !== undefined)?.maxLength;
}

test("the cluster's owner and notes are in the OpenAPI document: PATCH body with limits, detail response", () => {
  const patch = doc.paths["/api/v1/clusters/{id}"]!.patch!;
  const body = patch.requestBody!.content["application/json"]!.schema.properties!;
  assert.equal(maxLength(body.owner), 120);
  assert.equal(maxLength(body.notes), 4000);
  const detail = doc.paths["/api/v1/clusters/{id}"]!.get!.responses["200"]!.content!["application/json"]!.schema.properties!;
  for (const field of ["owner", "notes", "capabilities", "link"]) assert.ok(detail[field], field);
});
