// Unauthenticated bodies are bounded before they are read: 50 MB sent to each route that answers
// without a session (sign-in, the CSRF and sign-in endpoints, registration on the agent port, the
// admin API, a console page), with Content-Length and chunked, is refused 413 (or the connection is
// cut) long before the body ends, and the server's resident memory grows by less than 20 MB.
// Bounded: each body stops as soon as the server answers or closes; at most ~600 MB if it never does.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { sendBigBody, type BigBodyOutcome } from "../helpers/big-body";
import { signIn } from "../helpers/console-session";
import { ADMIN, startFleetServer, type FleetServer } from "../helpers/fleet-server";

const MB = 1024 * 1024;
const BODY_BYTES = 50 * MB;
const RSS_GROWTH_LIMIT = 20 * MB;
const WARM_UP_ROUNDS = 4;

let server: FleetServer;

before(async () => {
  server = await startFleetServer({ LOG_LEVEL: "warn" });
});
after(async () => {
  await server?.stop();
});

function rssBytes(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? "0") * 1024;
  return { now: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux, the same user's process). */
function resetPeak(pid: number) {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** Up to 50 MB (or `total`) to `path` on `base`, stopping at the server's answer or cut. */
function sendHuge(
  base: string,
  method: string,
  path: string,
  chunked: boolean,
  headers: Record<string, string> = {},
  total = BODY_BYTES,
): Promise<BigBodyOutcome> {
  return sendBigBody(new URL(path, base).toString(), { method, chunked, headers, total });
}

test("50 MB bodies to unauthenticated routes are refused before they are read, and memory stays flat", async (ctx) => {
  const pid = server.pid();
  assert.ok(pid, "the server's pid");
  const c = server.consoleUrl;
  const a = server.agentUrl;
  const targets: {
    name: string;
    base: string;
    method: string;
    path: string;
    headers?: Record<string, string>;
    early?: number;
  }[] = [
    { name: "sign-in (credentials callback)", base: c, method: "POST", path: "/api/auth/callback/credentials" },
    { name: "sign-in endpoint", base: c, method: "POST", path: "/api/auth/signin/credentials" },
    { name: "CSRF endpoint", base: c, method: "POST", path: "/api/auth/csrf" },
    {
      name: "registration (agent port)",
      base: a,
      method: "POST",
      path: "/api/agent/v1/register",
      headers: { authorization: "Bearer frt_fake.fake", "content-type": "application/json" },
    },
    // Refused for want of a session before its body is read: a 401 then is as good as a 413.
    {
      name: "admin API without a session",
      base: c,
      method: "POST",
      path: "/api/v1/registration-tokens",
      headers: { "content-type": "application/json" },
      early: 401,
    },
    { name: "a console page", base: c, method: "POST", path: "/login" },
  ];
  // Each route's code, and its refusal's, runs once first (a small body, then one just past the
  // limit), so what is measured is what the 50 MB bodies cost.
  // Several rounds: V8's young generation grows to its full size with any garbage, and that
  // growth (up to ~3 semi-spaces) is not what this measures.
  for (let round = 0; round < WARM_UP_ROUNDS; round++) {
    for (const t of targets) {
      for (const chunked of [false, true]) {
        await sendHuge(t.base, t.method, t.path, chunked, t.headers, 1024);
        await sendHuge(t.base, t.method, t.path, chunked, t.headers, 256 * 1024);
      }
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  resetPeak(pid);
  const baseline = rssBytes(pid).now;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid).now)), 10);
  const outcomes: string[] = [];
  const problems: string[] = [];
  try {
    for (const t of targets) {
      for (const chunked of [false, true]) {
        const label = `${t.name}, ${chunked ? "chunked" : "Content-Length"}`;
        const o = await sendHuge(t.base, t.method, t.path, chunked, t.headers);
        outcomes.push(
          `${label}: ${o.status ?? o.error} after ${(o.sent / MB).toFixed(1)} MB (peak +${((peak - baseline) / MB).toFixed(1)})`,
        );
        if (o.status !== null) {
          const early = chunked && o.status === t.early;
          if (!early && (o.status !== 413 || !o.body.includes('"payload_too_large"')))
            problems.push(`${label}: ${o.status} ${o.body.slice(0, 120)}`);
        } else if (!chunked || !["ECONNRESET", "EPIPE"].includes(o.error ?? "")) {
          // Cut while sending: only acceptable for a chunked body (its size is not known up front).
          problems.push(`${label}: ${o.error}`);
        }
        // Refused long before its end: the server did not read on to the end.
        if (o.sent >= BODY_BYTES) problems.push(`${label}: the whole body was sent`);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssBytes(pid).peak);
  const growth = peak - baseline;
  ctx.diagnostic(`RSS +${(growth / MB).toFixed(1)} MB; ${outcomes.join("; ")}`);
  assert.deepEqual(problems, [], `RSS +${(growth / MB).toFixed(1)} MB; ${outcomes.join("; ")}`);
  assert.ok(
    growth < RSS_GROWTH_LIMIT,
    `RSS grew by ${(growth / MB).toFixed(1)} MB (limit ${RSS_GROWTH_LIMIT / MB} MB): ${outcomes.join("; ")}`,
  );
  // The server is still whole: it answers, and signing in still works.
  const res = await signIn(server.consoleUrl, ADMIN);
  assert.ok(res.cookie, "the admin can still sign in");
});

test("bodies within the limits still pass: a 60 KiB admin body is read, one past 64 KiB is 413 at once", async () => {
  const labels: Record<string, string> = {};
  // Roughly 60 KiB of label values: within the admin API's 64 KiB, refused by validation, not by size.
  for (let i = 0; i < 1000; i++) labels[`k${i}`] = "v".repeat(50);
  const within = await server.api("POST", "/api/v1/registration-tokens", {
    name: "big",
    ttlSeconds: 3600,
    maxClusters: 1,
    fixedLabels: labels,
  });
  assert.ok(JSON.stringify(labels).length > 55 * 1024 && JSON.stringify(labels).length < 64 * 1024);
  assert.notEqual(within.status, 413, JSON.stringify(within.body).slice(0, 200));
  for (let i = 1000; i < 1200; i++) labels[`k${i}`] = "v".repeat(50);
  const over = await server.api("POST", "/api/v1/registration-tokens", {
    name: "big",
    ttlSeconds: 3600,
    maxClusters: 1,
    fixedLabels: labels,
  });
  assert.equal(over.status, 413);
  assert.equal(over.body.error, "payload_too_large");
});
