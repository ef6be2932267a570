import { renderMetrics } from "@/lib/server/metrics/fleet-metrics";

export const dynamic = "force-dynamic";

/** Prometheus scrape endpoint (no secrets: counts, expiries, latencies). */
export async function GET() {
  return new Response(await renderMetrics(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
}
