import { fleetRoutes } from "@/lib/contracts/fleet";
import { hasRole } from "@/lib/domain/roles";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { adminRoute, authenticate } from "@/lib/server/api/admin-route";
import { ApiError } from "@/lib/server/api/errors";
import { clusterLabels } from "@/lib/server/auth/authorize";
import { subscribe, subscriberCount, type FleetEvent } from "@/lib/server/events/bus";
import { onSummary } from "@/lib/server/events/fleet-summary";

export const dynamic = "force-dynamic";

// Bounded: each stream holds a connection and a listener.
const MAX_STREAMS = 500;
const KEEPALIVE_MS = 15_000;
// A stream outlives its request's authentication: the caller is checked again this often, so
// the stream of a signed-out, disabled or re-passworded user, or of a revoked key or a disabled
// creator's key, closes within 5 s: one interval plus the check's own time, with room for a busy
// database. Two point reads per stream per interval.
const REAUTHENTICATE_MS = 2_000;

/**
 * Server-sent events: status transitions and registrations as they happen, and a throttled
 * fleet summary (counts by status, heartbeats per second). Never one message per heartbeat.
 */
export const GET = adminRoute(fleetRoutes.events, async ({ req, principal, scope }) => {
  const inScope = scope ? scopeFilter(scope) : null;
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
        if (e.type === "instance.heartbeats") return;
        // The fleet's approval queue count, for those who decide across the fleet (a team operator's
        // badge counts their scope's requests, polled).
        if (e.type === "registration.requests" && !hasRole(principal.role, "operator")) return;
        if (!inScope) return send(e.type, e);
        // Team roles: their clusters' events only; fleet-wide counts and the approval queue are not theirs.
        if ("clusterId" in e)
          void inScope(e.clusterId).then((ok) => {
            if (ok) send(e.type, e);
          });
      });
      // Throttled and shared by every stream of this instance (lib/server/events/fleet-summary.ts).
      const stopSummaries = inScope ? () => {} : onSummary((s) => send(s.type, s));
      const keepalive = setInterval(() => write(": keepalive\n\n"), KEEPALIVE_MS);
      let checking = false;
      const recheck = setInterval(() => {
        if (checking) return;
        checking = true;
        authenticate(req)
          .then((p) => p.role !== null || (inScope !== null && p.teams.length > 0))
          .catch(() => false)
          .then((allowed) => {
            checking = false;
            if (!allowed) cleanup();
          });
      }, REAUTHENTICATE_MS);
      cleanup = () => {
        unsubscribe();
        stopSummaries();
        clearInterval(keepalive);
        clearInterval(recheck);
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

/**
 * Whether a cluster is in one of the caller's teams' scopes, remembered per stream (a removed
 * cluster's last event finds no row: it was in scope if an earlier event of it was).
 */
function scopeFilter(scope: readonly Selector[]): (clusterId: string) => Promise<boolean> {
  const seen = new Map<string, boolean>();
  return async (clusterId) => {
    const labels = await clusterLabels(clusterId).catch(() => null);
    if (!labels) return seen.get(clusterId) ?? false;
    const ok = scope.some((s) => matchesSelector(labels, s));
    seen.set(clusterId, ok);
    if (seen.size > 10_000) seen.clear();
    return ok;
  };
}
