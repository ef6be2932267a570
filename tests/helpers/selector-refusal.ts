// A selector limit's refusal as every route words it (lib/domain/selector.ts): 400 invalid_request,
// the limit named in the message and in the field's detail, and which limit in `limit`.
import assert from "node:assert/strict";

type Body = { error?: string; message?: string; details?: { field: string; message: string; limit?: string }[] };

export function assertLimit(res: { status: number; body: Body }, field: string, limit: string, text: RegExp, what: string) {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`);
  assert.equal(res.body.error, "invalid_request", what);
  assert.match(res.body.message ?? "", text, `${what}: the message names the limit`);
  const detail = res.body.details?.find((d) => d.field === field);
  assert.ok(detail, `${what}: a detail for ${field} in ${JSON.stringify(res.body.details)}`);
  assert.match(detail.message, text, `${what}: the detail names the limit`);
  assert.equal(detail.limit, limit, what);
}
