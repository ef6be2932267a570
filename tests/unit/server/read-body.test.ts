import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "@/lib/server/api/errors";
import { readJsonStream } from "@/lib/server/api/read-body";

async function* chunks(parts: string[], failWith?: Error) {
  for (const p of parts) yield Buffer.from(p);
  if (failWith) throw failWith;
}

function code(err: unknown) {
  return err instanceof ApiError ? `${err.status} ${err.code}` : `not an ApiError: ${String(err)}`;
}

test("a body cut off by the client is its 400, not a server error", async () => {
  const aborted = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
  const err = await readJsonStream(chunks(['{"name":'], aborted), "100", "application/json").catch((e: unknown) => e);
  assert.equal(code(err), "400 invalid_request");
});

test("a body over the limit while streaming is 413, and a whole one parses", async () => {
  const err = await readJsonStream(chunks(["x".repeat(40), "y".repeat(40)]), undefined, "application/json", 64).catch(
    (e: unknown) => e,
  );
  assert.equal(code(err), "413 payload_too_large");
  assert.deepEqual(await readJsonStream(chunks(['{"a":', "1}"]), "7", "application/json"), { a: 1 });
});
