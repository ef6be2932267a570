import "server-only";
import { bearerToken } from "@/lib/server/auth/bearer";
import { env } from "@/lib/env";
import { isLoopbackAddress } from "@/lib/domain/network";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { ApiError } from "@/lib/server/api/errors";
import { digestsEqual, sha256Hex } from "@/lib/server/auth/secrets";

/**
 * Who may read /api/metrics (it names every cluster and token): with METRICS_TOKEN set, whoever
 * sends it as a bearer token (as Prometheus scrape configs do); unset, loopback peers only. The
 * peer is the socket's, as noted by the custom server; forwarded headers are never consulted.
 */
export function authorizeScrape(
  headers: Pick<Headers, "get">,
  metricsToken: string | null | undefined = env().METRICS_TOKEN,
): void {
  if (metricsToken) {
    const given = bearerToken(headers.get("authorization"));
    // Compared as digests: constant time whatever the lengths.
    if (!given || !digestsEqual(sha256Hex(given), sha256Hex(metricsToken))) {
      throw new ApiError("unauthenticated", "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.", undefined, {
        "www-authenticate": 'Bearer realm="metrics"',
      });
    }
    return;
  }
  if (!isLoopbackAddress(headers.get(IDENTITY_HEADERS.remoteAddress))) {
    throw new ApiError(
      "forbidden",
      "Metrics answer only loopback clients while METRICS_TOKEN is unset; set it and scrape with that bearer token.",
    );
  }
}
