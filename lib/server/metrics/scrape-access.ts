import "server-only";
import { networkInterfaces } from "node:os";
import { bearerToken } from "@/lib/server/auth/bearer";
import { env } from "@/lib/env";
import { isLoopbackAddress } from "@/lib/domain/network";
import { isLoopbackBind, servesHost } from "@/lib/domain/served-host";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { ApiError } from "@/lib/server/api/errors";
import { digestsEqual, sha256Hex } from "@/lib/server/auth/secrets";

/** What decides who may scrape: METRICS_TOKEN, the bind address (HOST) and the public URL (NEXTAUTH_URL). */
export type ScrapeConfig = {
  token: string | null | undefined;
  bind: string;
  publicUrl: string | null | undefined;
  /** This machine's interface addresses (read per request by default: a pod's address is known only at run time). */
  ownAddresses?: () => string[];
};

function configured(): ScrapeConfig {
  const e = env();
  return { token: e.METRICS_TOKEN, bind: e.HOST, publicUrl: e.NEXTAUTH_URL };
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/**
 * Who may read /api/metrics (it names every cluster and token):
 * - only under a Host name this server is known by (lib/domain/served-host.ts), else 421, so a
 *   page on another site cannot read it through DNS rebinding;
 * - with METRICS_TOKEN set, whoever sends it as a bearer token (as Prometheus scrape configs do);
 * - unset, only while the server listens on loopback, and then only loopback peers (the socket's
 *   peer as noted by the custom server; forwarded headers are never consulted). Listening on any
 *   other address without a token, metrics answer 401 to everyone: the process still starts (a
 *   monitoring setting should not take the registry down) and says so in its start log.
 */
export function authorizeScrape(headers: Pick<Headers, "get">, config: ScrapeConfig = configured()): void {
  const publicHost = config.publicUrl ? new URL(config.publicUrl).hostname.replace(/^\[(.*)\]$/, "$1") : null;
  const ownAddresses = (config.ownAddresses ?? interfaceAddresses)();
  if (!servesHost(headers.get("host"), { publicHost, bind: config.bind, ownAddresses })) {
    throw new ApiError(
      "host_not_served",
      "This server does not answer metrics under that Host name; scrape it by its configured URL or its own address.",
    );
  }
  if (config.token) {
    const given = bearerToken(headers.get("authorization"));
    // Compared as digests: constant time whatever the lengths.
    if (!given || !digestsEqual(sha256Hex(given), sha256Hex(config.token))) {
      throw new ApiError("unauthenticated", "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.", undefined, {
        "www-authenticate": 'Bearer realm="metrics"',
      });
    }
    return;
  }
  if (!isLoopbackBind(config.bind)) {
    throw new ApiError(
      "unauthenticated",
      `Metrics need METRICS_TOKEN while the server listens on ${config.bind} (not loopback only); set it and scrape with that bearer token.`,
      undefined,
      { "www-authenticate": 'Bearer realm="metrics"' },
    );
  }
  if (!isLoopbackAddress(headers.get(IDENTITY_HEADERS.remoteAddress))) {
    throw new ApiError(
      "forbidden",
      "Metrics answer only loopback clients while METRICS_TOKEN is unset; set it and scrape with that bearer token.",
    );
  }
}

/** The start log's warning when metrics can answer nobody (see authorizeScrape); null when they can. */
export function metricsStartWarning(config: ScrapeConfig = configured()): string | null {
  if (config.token || isLoopbackBind(config.bind)) return null;
  return `METRICS_TOKEN is not set and the server listens on ${config.bind}: /api/metrics answers 401 until it is set`;
}
