// A production server warms its console routes after it listens (lib/server/console-warmup.ts):
// the warm-up finishes on its own, without a session, and the first signed-in overview after it
// is served; the process runs with the product's memory flags and reports its memory split.
// Bounded: one server start, well under a minute.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFleetServer } from "../helpers/fleet-server";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  "after a start the console warms up by itself, and /api/metrics shows where the memory is",
  { timeout: 120_000 },
  async () => {
    const server = await startFleetServer({ LOG_LEVEL: "info", CONSOLE_WARMUP: "on" });
    try {
      for (const until = Date.now() + 30_000; !/console warmed up/.test(server.logs()) && Date.now() < until;) await sleep(200);
      assert.match(server.logs(), /console warmed up/);
      assert.doesNotMatch(server.logs(), /console warm-up request failed/);

      const page = await fetch(`${server.consoleUrl}/`, { headers: { cookie: await server.adminCookie() }, redirect: "manual" });
      assert.equal(page.status, 200);
      await page.text();

      const metrics = await (await fetch(`${server.consoleUrl}/api/metrics`)).text();
      const rss = Number(/^fleet_process_memory_bytes\{kind="rss"\} (\d+)$/m.exec(metrics)?.[1]);
      const heap = Number(/^fleet_process_memory_bytes\{kind="heap_used"\} (\d+)$/m.exec(metrics)?.[1]);
      assert.ok(rss > heap && heap > 0, metrics.slice(0, 500));
    } finally {
      await server.stop();
    }
  },
);
