import type http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import type { IncomingHttpHeaders } from "node:http";
import { parseRetryAfter } from "./backoff";
import { connectTunnel, proxyFor } from "../net/proxy-tunnel";
import { BadResponseError, ProtocolError, TimeoutError } from "./errors";

// The only way the agent talks to the control plane: JSON over HTTPS, verified against the
// pinned fleet CA with the host name checked (Node's default checkServerIdentity), optionally
// with the agent's client certificate (mutual TLS).

export interface ClientIdentity {
  keyPem: string;
  certPem: string;
}

const MAX_TLS_SESSIONS = 16;

/**
 * The egress proxy's settings beside HTTPS_PROXY/NO_PROXY, process-wide as those are: the CA
 * bundle an https:// proxy's certificate is checked against (--proxy-ca-file) and how long a proxy
 * may take to open a tunnel (the request timeout).
 */
const proxySettings: { caPem?: string; connectTimeoutMs?: number } = {};
export function configureProxy(settings: { caPem?: string; connectTimeoutMs?: number }): void {
  Object.assign(proxySettings, settings);
}

/**
 * An https.Agent that tunnels through the HTTPS_PROXY with CONNECT when the environment asks for
 * it (the TLS session, client certificate included, runs end to end inside the tunnel), and
 * connects directly otherwise. Either way a new connection resumes the last TLS session (the
 * server's session ticket): reconnecting after an idle close, a server restart or to another
 * instance behind a load balancer skips the full handshake. Node's own https.Agent does that in
 * the createConnection this class replaces.
 */
export class EnvProxyAgent extends https.Agent {
  /** The newest session ticket per destination (one destination per agent in practice). */
  private readonly tlsSessions = new Map<string, Buffer>();
  /** A proxy fixed by configuration (a kubeconfig's `proxy-url`); null: none; undefined: the environment's. */
  private readonly proxy: URL | null | undefined;

  constructor(options: https.AgentOptions & { proxy?: URL | null } = {}) {
    const { proxy, ...rest } = options;
    super(rest);
    this.proxy = proxy;
  }

  private connectTls(options: tls.ConnectionOptions & { host?: string; port?: number }): tls.TLSSocket {
    const key = `${options.host}:${options.port}:${options.servername ?? ""}`;
    const socket = tls.connect({ ...options, session: this.tlsSessions.get(key) });
    socket.on("session", (session: Buffer) => {
      if (this.tlsSessions.size >= MAX_TLS_SESSIONS && !this.tlsSessions.has(key)) this.tlsSessions.clear();
      this.tlsSessions.set(key, session);
    });
    // A connection that failed may have failed because of the session: start the next one afresh.
    socket.once("close", (hadError) => {
      if (hadError) this.tlsSessions.delete(key);
    });
    return socket;
  }

  override createConnection(
    requestOptions: http.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    // The agent hands its own options merged with the request's: TLS fields included.
    const options = requestOptions as tls.ConnectionOptions & { host?: string; port?: number };
    const host = options.host ?? "localhost";
    const port = options.port ?? 443;
    const proxy = this.proxy === undefined ? proxyFor(host, process.env, port) : this.proxy;
    if (!proxy || !callback) return this.connectTls(options);
    connectTunnel(proxy, host, port, { proxyCaPem: proxySettings.caPem, timeoutMs: proxySettings.connectTimeoutMs }).then(
      (socket) =>
        callback(
          null,
          this.connectTls({ ...options, socket, servername: options.servername ?? (net.isIP(host) ? undefined : host) }),
        ),
      (err: Error) => callback(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

export interface TlsAgentOptions {
  /** Sockets per agent; 1 for a single cluster's sequential heartbeats. */
  maxSockets?: number;
  keepAlive?: boolean;
}

/**
 * An https.Agent that trusts only `caPem` and, with `identity`, presents the agent's client
 * certificate. The secure context is built once here rather than per connection, which the
 * simulator's thousands of agents notice.
 */
export function createTlsAgent(caPem: string, identity?: ClientIdentity, options: TlsAgentOptions = {}): https.Agent {
  const secureContext = tls.createSecureContext({ ca: caPem, key: identity?.keyPem, cert: identity?.certPem });
  return new EnvProxyAgent({
    keepAlive: options.keepAlive ?? true,
    maxSockets: options.maxSockets ?? 1,
    secureContext,
    rejectUnauthorized: true,
  });
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RequestOptions {
  method: "GET" | "POST";
  agent: https.Agent;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How long a connection whose answer came too late may still deliver it before it is closed. */
export const LATE_ANSWER_GRACE_MS = 60_000;

function once(url: URL, options: RequestOptions): Promise<HttpResult & { reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const req = https.request(url, {
      method: options.method,
      agent: options.agent,
      signal: options.signal,
      headers: {
        accept: "application/json",
        ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
        ...options.headers,
      },
    });
    // One deadline for the whole exchange (connect, TLS, response), not only socket idleness.
    // Past it the caller gets a TimeoutError, but a request that already holds a connection is
    // not destroyed: its late answer is drained so the connection stays in the keep-alive pool
    // and the retry rides it (an agent's https.Agent has one socket: the retry queues behind the
    // late answer). Destroying it made every timeout cost a new TLS handshake, which turned an
    // overloaded server's slow answers into a storm of handshakes. After a further grace period
    // the connection is given up.
    let lateTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (fn: () => void) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      fn();
    };
    const timer = setTimeout(() => {
      const timeout = new TimeoutError(`no response within ${Math.round(options.timeoutMs / 1000)}s`);
      if (!req.socket || req.destroyed) {
        req.destroy(timeout);
        return;
      }
      settle(() => reject(timeout));
      lateTimer = setTimeout(() => req.destroy(timeout), LATE_ANSWER_GRACE_MS);
      lateTimer.unref();
    }, options.timeoutMs);
    req.on("close", () => clearTimeout(lateTimer));
    req.on("error", (err) => {
      (err as Error & { reusedSocket?: boolean }).reusedSocket = req.reusedSocket;
      settle(() => reject(err));
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          req.destroy(new BadResponseError(`response larger than ${MAX_RESPONSE_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () =>
        settle(() =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
            reusedSocket: req.reusedSocket,
          }),
        ),
      );
      res.on("error", (err) => settle(() => reject(err)));
    });
    req.end(payload);
  });
}

/**
 * A keep-alive socket the server closed while idle fails the next request with ECONNRESET (or
 * EPIPE) before the server processed anything: the one failure worth retrying at once, on a new
 * connection. `err.reusedSocket` is set from the request's `reusedSocket` by the caller.
 */
export function isResetOfReusedSocket(err: unknown, signal?: AbortSignal): boolean {
  const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean };
  return !!e?.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE") && !signal?.aborted;
}

/** One HTTPS exchange; a reset of a reused keep-alive socket is retried once. */
export async function httpRequest(base: URL, pathname: string, options: RequestOptions): Promise<HttpResult> {
  const url = new URL(pathname, base);
  try {
    return await once(url, options);
  } catch (err) {
    if (isResetOfReusedSocket(err, options.signal)) return once(url, options);
    throw err;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A 2xx JSON answer with its status (201 and 202 mean different things) and Retry-After. */
export interface JsonAnswer {
  status: number;
  body: unknown;
  retryAfterMs?: number;
}

/** A JSON exchange: the parsed 2xx body, or a ProtocolError carrying the error code. */
export async function requestJson(base: URL, pathname: string, options: RequestOptions, nowMs = Date.now()): Promise<unknown> {
  return (await requestJsonAnswer(base, pathname, options, nowMs)).body;
}

/** requestJson with the answer's status and Retry-After. */
export async function requestJsonAnswer(
  base: URL,
  pathname: string,
  options: RequestOptions,
  nowMs = Date.now(),
): Promise<JsonAnswer> {
  const res = await httpRequest(base, pathname, options);
  const body = parseJson(res.text);
  if (res.status >= 200 && res.status < 300) {
    if (body === undefined) throw new BadResponseError(`HTTP ${res.status} from ${pathname} is not JSON`);
    return { status: res.status, body, retryAfterMs: parseRetryAfter(res.headers["retry-after"], nowMs) };
  }
  const err = (body ?? {}) as { error?: unknown; message?: unknown; details?: unknown };
  throw new ProtocolError(
    res.status,
    typeof err.error === "string" ? err.error : `http_${res.status}`,
    typeof err.message === "string" ? err.message : "",
    err.details,
    parseRetryAfter(res.headers["retry-after"], nowMs),
  );
}
