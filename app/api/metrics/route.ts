import type { NextRequest } from "next/server";
import { errorResponse } from "@/lib/server/api/errors";
import { renderMetrics } from "@/lib/server/metrics/fleet-metrics";
import { authorizeScrape } from "@/lib/server/metrics/scrape-access";

export const dynamic = "force-dynamic";

/** Prometheus scrape endpoint: counts, expiries and latencies, but also cluster and token names. */
export async function GET(req: NextRequest) {
  try {
    authorizeScrape(req.headers);
    return new Response(await renderMetrics(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
  } catch (err) {
    return errorResponse(err);
  }
}
