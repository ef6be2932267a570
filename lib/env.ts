// The one place that reads process.env. Everything is validated once; a bad value stops the
// process at start with a message naming the variable.
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { availableParallelism, userInfo } from "node:os";
import path from "node:path";
import { z } from "zod";
import { BUILD_AGENT_VERSION } from "./build-version";
import { agentImageWarning, effectiveAgentImage } from "./domain/agent-image";
import { isCidr } from "./domain/client-address";
import { emailSchema } from "./domain/email";

/** The fleet CA's key types (FLEET_CA_ALGORITHM). */
export const CA_ALGORITHMS = ["rsa-3072", "ecdsa-p256"] as const;
export type CaAlgorithm = (typeof CA_ALGORITHMS)[number];

const port = z.coerce.number().int().min(1).max(65535);
const csv = z.string().transform((s) =>
  s
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean),
);

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: port.default(3000),
  AGENT_PORT: port.default(8443),
  /** Address both ports bind to. */
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => !v || /^(file:|postgres(ql)?:\/\/)/.test(v), {
      message: "must start with file:, postgres:// or postgresql://",
    }),
  /** PostgreSQL connections this process opens at most; else the URL's connection_limit, else 10. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  ADMIN_EMAIL: emailSchema.optional(),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  AGENT_HOSTNAMES: csv.default(["localhost", "127.0.0.1"]),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * Public URL of the console: sign-in builds its redirects and callbacks from it (authUrl below).
   * Required in production unless the console listens on loopback only.
   */
  NEXTAUTH_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }).optional(),
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_NAME: z.string().min(1).default("Single sign-on"),
  /** Scopes asked at sign-in; add the one your provider releases the role claim under (e.g. groups). */
  OIDC_SCOPES: z
    .string()
    .default("openid email profile")
    .refine((s) => s.split(/\s+/).includes("openid"), { message: "must include openid" }),
  /**
   * Proxies whose X-Forwarded-For/-Host/-Proto are believed (the client's address, the console's
   * public origin), on both ports. Never a client identity: that is the next two settings.
   */
  TRUSTED_PROXY_CIDRS: csv.default([]).superRefine((cidrs, ctx) => {
    for (const cidr of cidrs) if (!isCidr(cidr)) ctx.addIssue({ code: "custom", message: `"${cidr}" is not an address or CIDR` });
  }),
  /**
   * A TLS-terminating proxy in front of the agent port whose X-Forwarded-Client-Cert is believed:
   * its address must be in these CIDRs AND its own connection must present a client certificate
   * pinned in CLIENT_CERT_PROXY_FINGERPRINTS. Off when empty (an L4 load balancer needs neither).
   */
  TRUSTED_CLIENT_CERT_PROXY_CIDRS: csv.default([]),
  /** SHA-256 fingerprints of the proxy's client certificates (sha256:<hex> or openssl's AB:CD:... form). */
  CLIENT_CERT_PROXY_FINGERPRINTS: csv.default([]),
  /** Key-encryption key that seals the fleet CA's private key (base64 or hex of 32 bytes), or a file holding it. */
  FLEET_CA_KEK: z.string().min(1).optional(),
  FLEET_CA_KEK_FILE: z.string().min(1).optional(),
  /**
   * The key of a fleet CA created from now on (the first start's, a rollover's incoming one); an
   * existing CA keeps its own. ECDSA P-256 signs a certificate ~40 times faster than RSA-3072.
   */
  FLEET_CA_ALGORITHM: z.enum(CA_ALGORITHMS).default("rsa-3072"),
  /** Bearer token /api/metrics requires; unset, it answers loopback peers only. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Registrations allowed per source address: sustained rate per minute, and burst. */
  REGISTRATION_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  REGISTRATION_RATE_BURST: z.coerce.number().int().min(1).default(200),
  /**
   * Admission control for register and rotate (both sign a certificate): how many run at once and
   * how many may wait; past that they get 503 overloaded with Retry-After. Sized for 2 cores:
   * enough in flight to keep the signing workers and the database busy, little enough that
   * heartbeats keep the event loop. The queue takes a burst of a few dozen (a fleet's agents
   * restarting together) without refusing; a queued request waits behind at most ~70 short ones.
   */
  SIGNING_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(8),
  SIGNING_MAX_QUEUED: z.coerce.number().int().min(0).default(64),
  /**
   * The Retry-After of those 503s: the time the backlog (running, queued, and refused requests
   * not due back yet) takes at the recent signing rate, spread per answer, within these bounds.
   */
  SIGNING_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).default(2),
  SIGNING_RETRY_AFTER_MAX_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * While the event loop's p99 delay over the last second is above this many ms, fewer register
   * and rotate requests run (in flight x threshold / lag, none queued; the rest 503 overloaded), so
   * a registration wave yields to heartbeats; 0 turns it off.
   */
  SIGNING_MAX_EVENT_LOOP_LAG_MS: z.coerce.number().int().min(0).default(100),
  /**
   * Container image the console's Kubernetes manifests run the agent from (without a tag: this
   * build's agent version). Unset, a placeholder no registry serves, and the console warns.
   */
  AGENT_IMAGE: z.string().min(1).optional(),
  /**
   * Processes that serve the agent port beside the main one (which keeps the console and the
   * jobs), sharing its listening socket; default one per core. 0: the main process serves it.
   */
  AGENT_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  /** Background jobs (status sweeper). Off for processes that only serve. */
  FLEET_WORKERS: z.enum(["on", "off"]).default("on"),
  /** Request the console's first pages once after a start, so the first visitor finds them warm. */
  CONSOLE_WARMUP: z.enum(["on", "off"]).default("on"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Check every admin API answer against its contract (lib/contracts); default: on unless NODE_ENV=production. */
  CHECK_API_RESPONSES: z.enum(["on", "off"]).optional(),
  // Webhooks: outgoing deliveries go through the proxy as curl's rule says (lib/net/proxy-tunnel.ts proxyFor).
  HTTPS_PROXY: z.string().optional(),
  https_proxy: z.string().optional(),
  NO_PROXY: z.string().optional(),
  no_proxy: z.string().optional(),
});

/** Every variable the configuration reads (the deployment manifests are checked against it). */
export const ENV_NAMES: readonly string[] = Object.keys(schema.shape);

export type Env = z.infer<typeof schema> & {
  dataDir: string;
  database: { dialect: "sqlite"; file: string } | { dialect: "postgres"; url: string; poolSize: number };
  oidc: { issuer: string; clientId: string; clientSecret: string; name: string; scopes: string } | null;
  /** The URL sign-in builds every redirect and callback from (see signInUrl); never a request's Host. */
  authUrl: string;
  /** The fleet CA's key-encryption key (32 bytes), from FLEET_CA_KEK or FLEET_CA_KEK_FILE; null: unsealed. */
  fleetCaKek: Buffer | null;
  checkApiResponses: boolean;
  /** AGENT_WORKERS, or one per core when unset. */
  agentWorkers: number;
  /** The agent image manifests and upgrades use (lib/domain/agent-image.ts), and why it needs an admin, if it does. */
  agentImage: string;
  agentImageWarning: string | null;
  /** Who may forward an agent's client certificate to the agent port; null: nobody. */
  clientCertProxies: ClientCertProxies | null;
};

/** Proxies believed about a client certificate: by address and by their own pinned certificate. */
export type ClientCertProxies = { cidrs: string[]; fingerprints: string[] };

export class EnvError extends Error {}

function load(source: NodeJS.ProcessEnv): Env {
  // Empty strings mean "unset" (docker-compose and shells make them easily).
  const raw = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ""));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const url = e.DATABASE_URL;
  const database: Env["database"] =
    url && !url.startsWith("file:")
      ? { dialect: "postgres", ...postgresPool(withUser(url), e.DATABASE_POOL_SIZE) }
      : { dialect: "sqlite", file: url ? path.resolve(url.slice("file:".length)) : path.join(dataDir, "fleet.db") };

  const oidcVars = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET];
  if (oidcVars.some(Boolean) && !oidcVars.every(Boolean)) {
    throw new EnvError("Invalid configuration:\n  OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together");
  }
  if (e.ADMIN_PASSWORD && !e.ADMIN_EMAIL) {
    throw new EnvError("Invalid configuration:\n  ADMIN_PASSWORD is set but ADMIN_EMAIL is not");
  }
  const oidc =
    e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
      ? {
          issuer: e.OIDC_ISSUER,
          clientId: e.OIDC_CLIENT_ID,
          clientSecret: e.OIDC_CLIENT_SECRET,
          name: e.OIDC_NAME,
          scopes: e.OIDC_SCOPES.trim(),
        }
      : null;
  const checkApiResponses = (e.CHECK_API_RESPONSES ?? (e.NODE_ENV === "production" ? "off" : "on")) === "on";
  return {
    ...e,
    dataDir,
    database,
    oidc,
    fleetCaKek: loadKek(e.FLEET_CA_KEK, e.FLEET_CA_KEK_FILE),
    checkApiResponses,
    agentWorkers: e.AGENT_WORKERS ?? availableParallelism(),
    agentImage: effectiveAgentImage(e.AGENT_IMAGE, BUILD_AGENT_VERSION),
    agentImageWarning: agentImageWarning(e.AGENT_IMAGE, BUILD_AGENT_VERSION),
    clientCertProxies: clientCertProxies(e.TRUSTED_CLIENT_CERT_PROXY_CIDRS, e.CLIENT_CERT_PROXY_FINGERPRINTS),
    // Last: a bad value of another setting is the more specific message.
    authUrl: signInUrl(e.NEXTAUTH_URL, e.HOST, e.PORT, e.NODE_ENV),
  };
}

const LOOPBACK_HOSTS = new Set(["localhost", "::1", "[::1]"]);

function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || (isIP(host) === 4 && host.startsWith("127."));
}

/**
 * The URL sign-in builds its redirects and callbacks from. next-auth left to itself takes it from
 * each request's Host header, so whoever names another host gets links to it. NEXTAUTH_URL when
 * set; else, on a console that listens on loopback only, that address (nobody else can reach it by
 * another name); else, outside production, http://localhost:<PORT>. A production console that
 * listens beyond loopback without it does not start.
 */
function signInUrl(configured: string | undefined, host: string, port: number, nodeEnv: string): string {
  if (configured) return configured;
  if (isLoopbackHost(host)) return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (nodeEnv !== "production") return `http://localhost:${port}`;
  throw new EnvError(
    "Invalid configuration:\n" +
      `  NEXTAUTH_URL: must be set in production when the console listens beyond loopback (HOST=${host}): ` +
      "the URL people open the console at, e.g. https://fleet.example.com. Sign-in builds its redirects " +
      "from it, never from a request's Host header. (`npm start` sets http://localhost:<PORT> when it is unset.)",
  );
}

/**
 * A forwarded client certificate becomes a cluster's identity, so the proxy that forwards it proves
 * itself twice: by where it connects from and by its own client certificate (an address range alone
 * holds every pod of a pod network). Both settings or neither.
 */
function clientCertProxies(cidrs: string[], fingerprints: string[]): ClientCertProxies | null {
  if (!cidrs.length && !fingerprints.length) return null;
  const problems: string[] = [];
  if (!cidrs.length) problems.push("CLIENT_CERT_PROXY_FINGERPRINTS is set but TRUSTED_CLIENT_CERT_PROXY_CIDRS is not; set both");
  if (!fingerprints.length) {
    problems.push(
      "TRUSTED_CLIENT_CERT_PROXY_CIDRS is set but CLIENT_CERT_PROXY_FINGERPRINTS is not: the proxy must present its own client certificate, pinned there",
    );
  }
  for (const cidr of cidrs)
    if (!isCidr(cidr)) problems.push(`TRUSTED_CLIENT_CERT_PROXY_CIDRS: "${cidr}" is not an address or CIDR`);
  const pins = fingerprints.map((f) => {
    const hex = f
      .replace(/^sha256:/i, "")
      .replace(/:/g, "")
      .toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex)) problems.push(`CLIENT_CERT_PROXY_FINGERPRINTS: "${f}" is not a SHA-256 fingerprint`);
    return `sha256:${hex}`;
  });
  if (problems.length) throw new EnvError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  return { cidrs, fingerprints: pins };
}

function loadKek(value: string | undefined, file: string | undefined): Buffer | null {
  if (value && file) throw new EnvError("Invalid configuration:\n  FLEET_CA_KEK and FLEET_CA_KEK_FILE are both set; set one");
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new EnvError(
        `Invalid configuration:\n  FLEET_CA_KEK_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
    return parseKek(text, "FLEET_CA_KEK_FILE");
  }
  return value ? parseKek(value, "FLEET_CA_KEK") : null;
}

/** A KEK is 32 random bytes written as 64 hex digits or as base64 (e.g. `openssl rand -base64 32`). */
export function parseKek(text: string, name = "FLEET_CA_KEK"): Buffer {
  const v = text.trim();
  let key: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(v)) key = Buffer.from(v, "hex");
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) key = Buffer.from(v, "base64");
  if (!key || key.length !== 32) {
    throw new EnvError(
      `Invalid configuration:\n  ${name}: must be 32 bytes written as 64 hex digits or base64 (e.g. openssl rand -base64 32)`,
    );
  }
  return key;
}

export const DEFAULT_POOL_SIZE = 10;

/**
 * The pool size: DATABASE_POOL_SIZE, else the URL's connection_limit (Prisma's own spelling, so a
 * URL written for Prisma's engines keeps its meaning), else DEFAULT_POOL_SIZE. The parameter is
 * taken out of the URL handed to the driver, which does not know it.
 */
function postgresPool(url: string, configured: number | undefined): { url: string; poolSize: number } {
  const u = new URL(url);
  const limit = u.searchParams.get("connection_limit");
  u.searchParams.delete("connection_limit");
  let fromUrl: number | undefined;
  if (limit !== null) {
    fromUrl = Number(limit);
    if (!Number.isInteger(fromUrl) || fromUrl < 1 || fromUrl > 1000) {
      throw new EnvError("Invalid configuration:\n  DATABASE_URL: connection_limit must be a whole number from 1 to 1000");
    }
  }
  return { url: limit === null ? url : u.toString(), poolSize: configured ?? fromUrl ?? DEFAULT_POOL_SIZE };
}

/** libpq falls back to the OS user when a URL names none; node-pg only to $USER. Match libpq. */
function withUser(url: string): string {
  const u = new URL(url);
  if (!u.username) u.username = userInfo().username;
  return u.toString();
}

let cached: Env | undefined;

/** The validated configuration. Throws EnvError on the first call when it is invalid. */
export function env(): Env {
  cached ??= load(process.env);
  return cached;
}

/** For tests and tools that need a configuration other than the process's. */
export function parseEnv(source: NodeJS.ProcessEnv): Env {
  return load(source);
}
