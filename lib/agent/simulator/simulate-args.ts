import { DNS_LABEL } from "../../domain/labels";
import { DEFAULTS, fail, parse, parseFingerprint, parseServerUrl, positiveNumber } from "../args";

// The simulator's command line, parsed and validated up front as the agent's is (../args.ts).

export const FAULT_KINDS = ["stop", "flap", "degraded", "late"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultShares = Record<FaultKind, number>;

export function parseFaults(value: string | undefined): FaultShares {
  const shares: FaultShares = { stop: 0, flap: 0, degraded: 0, late: 0 };
  if (!value) return shares;
  for (const part of value.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const [kind, share, extra] = item.split("=");
    if (!kind || share === undefined || extra !== undefined || !(FAULT_KINDS as readonly string[]).includes(kind)) {
      fail(`--faults: "${item}" must be one of ${FAULT_KINDS.map((k) => `${k}=SHARE`).join(", ")}`);
    }
    const n = Number(share);
    if (share.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
      fail(`--faults: share for ${kind} must be between 0 and 1 (got "${share}")`);
    shares[kind as FaultKind] = n;
  }
  const total = FAULT_KINDS.reduce((sum, k) => sum + shares[k], 0);
  // Each simulated cluster gets at most one fault, so the shares partition the fleet.
  if (total > 1) fail(`--faults: shares add up to ${total}, more than 1`);
  return shares;
}

export interface SimulateArgs {
  server: URL;
  clusters: number;
  intervalSeconds: number;
  token?: string;
  tokenFile?: string;
  caFile?: string;
  caFingerprint?: string;
  stateDir?: string;
  concurrency: number;
  faults: FaultShares;
  durationSeconds?: number;
  prefix: string;
  keyPool: number;
  seed: number;
  duplicateUids: number;
  timeoutSeconds: number;
  logFile?: string;
}

export const SIMULATE_USAGE = `Usage: npm run simulate -- --server URL --clusters N (--token T | --token-file F) (--ca-file F | --ca-fingerprint sha256:H) [options]

  --clusters N        simulated clusters (1-100000)
  --interval S        heartbeat interval in seconds (default 15; overrides the server's)
  --token T | --token-file F
                      a registration token allowing at least N clusters (not needed for clusters
                      already registered in --state-dir)
  --ca-file F | --ca-fingerprint sha256:H   trust for the fleet CA, as for the agent
  --state-dir D       keep each cluster's state in D/<name> so a rerun reuses registrations
                      (default: in memory)
  --concurrency C     registrations in flight at once (default 16)
  --faults SPEC       shares of misbehaving clusters, e.g. stop=0.05,flap=0.05,degraded=0.05,late=0.05
  --duration S        stop after S seconds and print a final summary (default: until Ctrl-C)
  --prefix P          cluster name prefix (default sim)
  --key-pool K        distinct RSA keys shared round-robin by the clusters (default 16; K >= N
                      gives every cluster its own key)
  --seed N            fleet generation seed (default 1: same names and metadata every run)
  --duplicate-uids P  P pairs of clusters (the 1st and 2nd, the 3rd and 4th, ...) report one
                      kube-system UID, as a cluster registered twice would (default 0)
  --timeout S         per-request timeout in seconds (default 15)
  --log-file F        append every agent log line to F (the screen shows only the summary)`;

function nonNegativeInteger(value: string | undefined, flag: string): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0 || n > 50_000) fail(`${flag} must be an integer from 0 to 50000`);
  return n;
}

export function parseSimulateArgs(argv: string[]): SimulateArgs {
  const str = parse(argv, [
    "server",
    "clusters",
    "interval",
    "token",
    "token-file",
    "ca-file",
    "ca-fingerprint",
    "state-dir",
    "concurrency",
    "faults",
    "duration",
    "prefix",
    "key-pool",
    "seed",
    "duplicate-uids",
    "timeout",
    "log-file",
  ]);
  const base = {
    clusters: 0,
    intervalSeconds: 15,
    concurrency: 16,
    faults: parseFaults(undefined),
    prefix: "sim",
    keyPool: 16,
    seed: 1,
    timeoutSeconds: DEFAULTS.timeoutSeconds,
  };
  const server = parseServerUrl(str("server"));
  const clusters =
    positiveNumber(str("clusters"), "--clusters", { integer: true, max: 100_000 }) ?? fail("--clusters is required");
  if (str("token") && str("token-file")) fail("give either --token or --token-file, not both");
  if (!str("token") && !str("token-file") && !str("state-dir"))
    fail("--token or --token-file is required (a token allowing --clusters registrations)");
  if (str("ca-file") && str("ca-fingerprint")) fail("give either --ca-file or --ca-fingerprint, not both");
  if (!str("ca-file") && !str("ca-fingerprint")) fail("--ca-file or --ca-fingerprint is required to trust the server");
  const prefix = str("prefix") ?? base.prefix;
  // The longest generated name is prefix + "-ap-southeast-2-staging-99999".
  if (!DNS_LABEL.test(prefix) || prefix.length > 30)
    fail(`--prefix "${prefix}" must be a DNS-1123 label of at most 30 characters`);
  const seed = str("seed") === undefined ? base.seed : Number(str("seed"));
  if (!Number.isInteger(seed) || seed < 0) fail(`--seed must be a non-negative integer (got "${str("seed")}")`);
  return {
    server,
    clusters,
    intervalSeconds: positiveNumber(str("interval"), "--interval", { max: 86_400 }) ?? base.intervalSeconds,
    token: str("token"),
    tokenFile: str("token-file"),
    caFile: str("ca-file"),
    caFingerprint: str("ca-fingerprint") !== undefined ? parseFingerprint(str("ca-fingerprint")!) : undefined,
    stateDir: str("state-dir"),
    concurrency: positiveNumber(str("concurrency"), "--concurrency", { integer: true, max: 1000 }) ?? base.concurrency,
    faults: parseFaults(str("faults")),
    durationSeconds: positiveNumber(str("duration"), "--duration"),
    prefix,
    keyPool: positiveNumber(str("key-pool"), "--key-pool", { integer: true, max: 100_000 }) ?? base.keyPool,
    seed,
    duplicateUids: nonNegativeInteger(str("duplicate-uids"), "--duplicate-uids"),
    timeoutSeconds: positiveNumber(str("timeout"), "--timeout", { max: 600 }) ?? base.timeoutSeconds,
    logFile: str("log-file"),
  };
}
