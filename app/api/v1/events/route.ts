import { adminRoute } from "@/lib/server/api/admin-route";
import { ApiError } from "@/lib/server/api/errors";
import { subscribe, subscriberCount, type FleetEvent } from "@/lib/server/events/bus";
import { fleetSummary } from "@/lib/server/events/fleet-summary";

export const dynamic = "force-dynamic";

// Bounded: each stream holds a connection and a listener.
const MAX_STREAMS = 500;
// Summaries are throttled: one every SUMMARY_MS whatever the heartbeat rate.
const SUMMARY_MS = 2000;
const KEEPALIVE_MS = 15_000;

/**
 * Server-sent events: status transitions and registrations as they happen, and a throttled
 * fleet summary (counts by status, heartbeats per second). Never one message per heartbeat.
 */
export const GET = adminRoute("viewer", async ({ req }) => {
  if (subscriberCount() >= MAX_STREAMS) throw new ApiError("unavailable", "Too many live streams are open; retry shortly.");
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: string, data: unknown) => {
        try {
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          cleanup();
        }
      };
      const summarise = () =>
        void fleetSummary().then(
          (s) => send(s.type, s),
          () => {},
        );
      const unsubscribe = subscribe((e: FleetEvent) => {
        if (e.type !== "instance.heartbeats") send(e.type, e);
      });
      const summaries = setInterval(summarise, SUMMARY_MS);
      const keepalive = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keepalive\n\n"));
        } catch {
          cleanup();
        }
      }, KEEPALIVE_MS);
      cleanup = () => {
        unsubscribe();
        clearInterval(summaries);
        clearInterval(keepalive);
        try {
          controller.close();
        } catch {}
      };
      req.signal.addEventListener("abort", cleanup);
      controller.enqueue(encoder.encode(`retry: 3000\n\n`));
      summarise();
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
});
