import { adminRoute } from "@/lib/server/api/admin-route";
import { ApiError } from "@/lib/server/api/errors";
import { subscribe, subscriberCount, type FleetEvent } from "@/lib/server/events/bus";
import { onSummary } from "@/lib/server/events/fleet-summary";

export const dynamic = "force-dynamic";

// Bounded: each stream holds a connection and a listener.
const MAX_STREAMS = 500;
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
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const send = (event: string, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      const unsubscribe = subscribe((e: FleetEvent) => {
        if (e.type !== "instance.heartbeats") send(e.type, e);
      });
      // Throttled and shared by every stream of this instance (lib/server/events/fleet-summary.ts).
      const stopSummaries = onSummary((s) => send(s.type, s));
      const keepalive = setInterval(() => write(": keepalive\n\n"), KEEPALIVE_MS);
      cleanup = () => {
        unsubscribe();
        stopSummaries();
        clearInterval(keepalive);
        try {
          controller.close();
        } catch {}
      };
      req.signal.addEventListener("abort", cleanup);
      write("retry: 3000\n\n");
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
