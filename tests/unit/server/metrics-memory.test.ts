// The process memory gauges on /api/metrics (fleet_process_memory_bytes): every kind rendered,
// values that are this process's own and consistent with each other. Under a second.
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderOwnMetrics } from "@/lib/server/metrics/registry";

test("memory is rendered by kind, and follows what the process holds", async () => {
  const read = async () => {
    const out: Record<string, number> = {};
    for (const line of await renderOwnMetrics()) {
      const m = /^fleet_process_memory_bytes\{kind="(\w+)"\} (\d+)$/.exec(line);
      if (m) out[m[1]!] = Number(m[2]);
    }
    return out;
  };
  const before = await read();
  assert.deepEqual(Object.keys(before).sort(), ["array_buffers", "external", "heap_total", "heap_used", "rss"]);
  assert.ok(before.rss! > before.heap_used! && before.heap_total! >= before.heap_used! && before.heap_used! > 0);
  // 64 MB outside the V8 heap shows as external and array buffers.
  const held = Buffer.alloc(64 * 1024 * 1024, 1);
  const after = await read();
  assert.ok(after.array_buffers! - before.array_buffers! >= 60 * 1024 * 1024, JSON.stringify({ before, after }));
  assert.ok(after.external! - before.external! >= 60 * 1024 * 1024);
  assert.equal(held.length, 64 * 1024 * 1024);
});
