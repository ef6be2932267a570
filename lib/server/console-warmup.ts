import { errorText } from "@/lib/domain/error-text";
import { log } from "@/lib/server/log";

/**
 * What a start-up warm-up requests on the console port, anonymously: the overview (its layout
 * and sign-in redirect), the sign-in page and the overview's API (401). Next has loaded the routes'
 * modules at start, but their code runs for the first time on the first request, which would
 * make the first visitor after a start wait for it. What is left after the warm-up needs a
 * session, which the warm-up does not forge.
 */
export const WARMUP_PATHS = ["/", "/login", "/api/v1/overview"] as const;

/** One warm-up request may take this long; a slow one only means a colder first visit. */
const WARMUP_TIMEOUT_MS = 15_000;

/** The loopback-reachable base URL of a server listening on `host`:`port`. */
export function warmupBaseUrl(host: string, port: number): string {
  if (host === "0.0.0.0" || host === "") return `http://127.0.0.1:${port}`;
  if (host === "::") return `http://[::1]:${port}`;
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

/**
 * Requests WARMUP_PATHS once, one after another, so the first person to open the console after a
 * start does not pay for the first render. Never throws: a failure is logged and ignored. Runs
 * beside readiness, not before it (server.ts says why).
 */
export async function warmConsole(baseUrl: string, paths: readonly string[] = WARMUP_PATHS): Promise<void> {
  const started = performance.now();
  for (const path of paths) {
    try {
      const res = await fetch(new URL(path, baseUrl), { redirect: "manual", signal: AbortSignal.timeout(WARMUP_TIMEOUT_MS) });
      await res.arrayBuffer();
    } catch (err) {
      log.warn("console warm-up request failed", { path, error: errorText(err) });
    }
  }
  log.info("console warmed up", { ms: Math.round(performance.now() - started) });
}
