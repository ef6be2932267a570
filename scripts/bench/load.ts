// A closed-loop HTTPS load generator: `connections` loops, each on its own keep-alive
// connection (and so its own client certificate), each sending the next request when the
// previous answer arrives. Prints nothing; returns the numbers.
import https from "node:https";
import pg from "pg";
import { adminDatabaseUrl } from "../../tests/helpers/test-database";

export type Target = { agent: https.Agent; host: string; port: number; path: string; body: string };
export type LoadResult = {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  errorCodes: Record<string, number>;
};

function once(t: Target): Promise<{ ok: boolean; code: string }> {
  return new Promise((resolve) => {
    const req = https.request(
      {
        method: "POST",
        host: t.host,
        port: t.port,
        path: t.path,
        agent: t.agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(t.body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ ok: res.statusCode === 200, code: String(res.statusCode) }));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ ok: false, code: err.code ?? "error" }));
    req.end(t.body);
  });
}

/**
 * `pauseMs`: each loop waits this long between answer and next request (paced agents, as a real
 * fleet sends heartbeats) instead of sending flat out.
 */
export async function runLoad(targets: Target[], seconds: number, warmupSeconds = 2, pauseMs = 0): Promise<LoadResult> {
  const latencies: number[] = [];
  const errorCodes: Record<string, number> = {};
  let requests = 0;
  let errors = 0;
  const start = performance.now();
  const measureFrom = start + warmupSeconds * 1000;
  const end = measureFrom + seconds * 1000;
  await Promise.all(
    targets.map(async (t) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await once(t);
        const t1 = performance.now();
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
        if (t0 < measureFrom) continue;
        requests++;
        latencies.push(t1 - t0);
        if (!r.ok) {
          errors++;
          errorCodes[r.code] = (errorCodes[r.code] ?? 0) + 1;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { requests, errors, rps: requests / seconds, p50: pct(50), p99: pct(99), errorCodes };
}

export function fmt(r: LoadResult) {
  return `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms  errors ${r.errors}${r.errors ? " " + JSON.stringify(r.errorCodes) : ""}`;
}

/** Whether the PostgreSQL server the tests use answers (the benches skip that engine otherwise). */
export async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}
