import "server-only";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";
import tls from "node:tls";
import type { Duplex } from "node:stream";
import { connectTunnel, proxyFor } from "@/lib/net/proxy-tunnel";
import { ADDRESS_REACH, describeAddress, webhookAddressAllowed } from "@/lib/domain/network";
import { env } from "@/lib/env";

// One webhook attempt. The target's host is resolved and every address it gives is checked
// (server-side request forgery: private and loopback targets only when allowed; link-local, cloud
// metadata and reserved ones never), then the connection goes to the address that was checked,
// never to a second lookup's answer (DNS rebinding). Through HTTPS_PROXY (https targets, unless
// NO_PROXY names the host) the tunnel is opened to that address too, with the certificate still
// checked against the host name.

export class TargetRefused extends Error {}

/** Who is refused and the setting that would allow private targets, for TargetRefused's sentence. */
export type TargetRule = { subject: string; allowedBy: string };
/** A rule whose private targets a fleet-wide setting allows. */
export type SettingTargetRule = TargetRule & { setting: "webhookAllowPrivateTargets" | "hubAllowPrivateTargets" };
export const WEBHOOK_RULE: SettingTargetRule = {
  subject: "webhooks go to",
  setting: "webhookAllowPrivateTargets",
  allowedBy: "Settings: webhookAllowPrivateTargets",
};

/** The checked address to connect to for `hostname`, or TargetRefused saying why not. */
export async function resolveTarget(
  hostname: string,
  allowPrivate: boolean,
  rule: TargetRule = WEBHOOK_RULE,
): Promise<{ address: string; family: 4 | 6 }> {
  const bare = hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: number }[];
  if (net.isIP(bare)) addresses = [{ address: bare, family: net.isIP(bare) }];
  else {
    try {
      addresses = await lookup(bare, { all: true, verbatim: true });
    } catch {
      throw new TargetRefused(`The host ${bare} does not resolve.`);
    }
  }
  const refused = addresses.find((a) => !webhookAddressAllowed(a.address, allowPrivate));
  if (refused || !addresses.length) {
    const info = refused ? describeAddress(refused.address) : null;
    throw new TargetRefused(
      `The host ${bare} resolves to ${refused ? `${refused.address}, ${info!.what}` : "no address"}; ${rule.subject} public addresses only` +
        (info && ADDRESS_REACH[info.class] === "private" ? ` unless an admin allows private targets (${rule.allowedBy}).` : "."),
    );
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

export type AttemptResult = { statusCode: number | null; latencyMs: number; error: string | null };

const MAX_ANSWER_BYTES = 64 * 1024;

function proxyEnv() {
  const e = env();
  return { HTTPS_PROXY: e.HTTPS_PROXY, https_proxy: e.https_proxy, NO_PROXY: e.NO_PROXY, no_proxy: e.no_proxy };
}

/** A CONNECT tunnel through `proxy` to the checked address, then TLS to the host name inside it. */
async function tunnel(proxy: URL, address: string, port: number, servername: string, signal: AbortSignal): Promise<Duplex> {
  const socket = await connectTunnel(proxy, address, port, { signal });
  return tls.connect({ socket, servername: net.isIP(servername) ? undefined : servername, host: servername });
}

/** POSTs `body` to `url` with `headers`; never throws: a refusal, a timeout or an error is the result's `error`. */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowPrivate: boolean; timeoutMs: number },
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  try {
    const u = new URL(url);
    const secure = u.protocol === "https:";
    const port = Number(u.port) || (secure ? 443 : 80);
    const target = await resolveTarget(u.hostname, opts.allowPrivate);
    const proxy = secure ? proxyFor(u.hostname, proxyEnv(), port) : null;
    const socket = proxy ? await tunnel(proxy, target.address, port, u.hostname, abort.signal) : null;
    const statusCode = await new Promise<number>((resolve, reject) => {
      const options: https.RequestOptions = {
        method: "POST",
        host: u.hostname.replace(/^\[|\]$/g, ""),
        port,
        path: `${u.pathname}${u.search}`,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        signal: abort.signal,
        agent: false,
        ...(socket
          ? { createConnection: () => socket }
          : {
              // The address checked above, whatever a second lookup would say now.
              lookup: ((_host: string, o: { all?: boolean }, cb: (...args: unknown[]) => void) =>
                o?.all ? cb(null, [target]) : cb(null, target.address, target.family)) as unknown as LookupFunction,
            }),
      };
      const req = (secure ? https : http).request(options, (res) => {
        let read = 0;
        // The answer is read (so the connection ends cleanly) and dropped: only its status counts.
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("close", () => resolve(res.statusCode ?? 0));
        res.once("error", () => resolve(res.statusCode ?? 0));
      });
      req.once("error", (err) => reject(abort.signal.aborted ? abort.signal.reason : err));
      req.end(body);
    });
    return { statusCode, latencyMs: elapsed(), error: null };
  } catch (caught) {
    const err: unknown = abort.signal.aborted ? abort.signal.reason : caught;
    const message = err instanceof TargetRefused ? err.message : err instanceof Error ? err.message : String(err);
    return { statusCode: null, latencyMs: elapsed(), error: message.slice(0, 300) };
  } finally {
    clearTimeout(timer);
  }
}
