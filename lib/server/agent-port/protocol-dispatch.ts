import "server-only";
import { bearerToken } from "@/lib/server/auth/bearer";
import type http from "node:http";
import { ApiError, errorReply } from "@/lib/server/api/errors";
import { readJson, readJsonNode } from "@/lib/server/api/read-body";
import { incCounter, observe } from "@/lib/server/metrics/registry";
import { agentIdentity, IDENTITY_HEADERS } from "./agent-identity";
import { requireAgentPort } from "./agent-port";
import { requestClientAddress } from "@/lib/server/net/trusted-proxies";
import { PROTOCOL_HANDLERS, type EndpointMetrics, type ProtocolHandler, type ProtocolReply } from "./protocol-handlers";

// The one door to the agent protocol: the agent port calls dispatchNode for every protocol path
// (Next's router alone capped a route near 1,000 requests/s on a 2-core machine), and the Next
// route app/api/agent/v1/[...path] calls dispatchRequest for whatever reaches Next (the CA on the
// console port). Both run `dispatch`: match the pathname (the query string is ignored), enforce
// the agent-port rule, parse the entry's credential, run its handler, record its metrics, and
// map every error through the one error table.

/** What dispatch needs of a request, whichever server received it. */
export type ProtocolRequest = {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: Pick<Headers, "get">;
  readBody(): Promise<unknown>;
};

const byPath = new Map<string, ProtocolHandler[]>();
for (const h of PROTOCOL_HANDLERS) byPath.set(h.path, [...(byPath.get(h.path) ?? []), h]);

function pathnameOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

/** Whether `url` names a protocol endpoint (any method, any query string). */
export function isProtocolPath(url: string): boolean {
  return byPath.has(pathnameOf(url));
}

async function run(entry: ProtocolHandler, req: ProtocolRequest): Promise<ProtocolReply> {
  if (entry.auth !== "public") requireAgentPort(req.headers);
  // The client's address as everywhere else (behind TRUSTED_PROXY_CIDRS only); none when no peer was noted.
  const sourceAddress = req.headers.get(IDENTITY_HEADERS.remoteAddress) === null ? null : requestClientAddress(req.headers);
  const ctx = { sourceAddress, body: () => req.readBody() };
  switch (entry.auth) {
    case "public":
      return entry.handle(ctx);
    case "token":
      return entry.handle({ ...ctx, token: bearerToken(req.headers.get("authorization")) });
    case "certificate":
      return entry.handle({ ...ctx, agent: await agentIdentity(req.headers, { acceptExpired: entry.acceptExpired }) });
  }
}

function record(metrics: EndpointMetrics, status: number, started: number) {
  const { duration, counter } = metrics;
  observe(duration.name, duration.help, duration.buckets, (performance.now() - started) / 1000);
  incCounter(counter.name, counter.help, { code: String(status) });
}

export async function dispatch(req: ProtocolRequest): Promise<ProtocolReply> {
  const entries = byPath.get(pathnameOf(req.url));
  if (!entries) return errorReply(new ApiError("not_found", "The agent protocol has no such endpoint (see docs/protocol.md)."));
  // HEAD is GET without the body (both servers leave the body out themselves).
  const method = req.method === "HEAD" ? "GET" : req.method;
  const entry = entries.find((e) => e.method === method);
  if (!entry) {
    const allow = entries.map((e) => e.method).join(", ");
    return errorReply(new ApiError("method_not_allowed", `Use ${allow} here.`, undefined, { allow }));
  }
  const started = performance.now();
  let reply: ProtocolReply;
  try {
    reply = await run(entry, req);
  } catch (err) {
    reply = errorReply(err);
  }
  if (entry.metrics) record(entry.metrics, reply.status, started);
  return reply;
}

function encode(reply: ProtocolReply): { text: string; headers: Record<string, string> } {
  const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
  return { text, headers: { "content-type": "application/json", ...reply.headers } };
}

/**
 * A Node request as dispatch sees it. Only a few headers are read: no need to copy every header
 * into a Headers object (and a class, not closures per request: every heartbeat makes one).
 */
class NodeProtocolRequest implements ProtocolRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Pick<Headers, "get"> = this;
  constructor(private readonly req: http.IncomingMessage) {
    this.method = req.method ?? "GET";
    this.url = req.url ?? "/";
  }
  get(name: string): string | null {
    return (this.req.headers[name] as string | undefined) ?? null;
  }
  // An oversized body is left open (not destroyed) so it still gets its 413.
  readBody(): Promise<unknown> {
    return readJsonNode(this.req);
  }
}

/** The agent port's door: a Node request straight to the table, without Next. */
export function dispatchNode(req: http.IncomingMessage, res: http.ServerResponse): void {
  answerNode(res, dispatch(new NodeProtocolRequest(req)));
}

/** Writes the reply (or the error it failed with) to a Node response. */
export function answerNode(res: http.ServerResponse, replying: Promise<ProtocolReply>): void {
  replying
    .catch((err: unknown) => errorReply(err))
    .then((reply) => {
      const { text, headers: out } = encode(reply);
      // A body refused part-way is not drained on a kept-alive connection: close it.
      if (reply.status === 413) out.connection = "close";
      res.writeHead(reply.status, { ...out, "content-length": String(Buffer.byteLength(text)) });
      res.end(text);
    })
    // The connection went away mid-answer: nothing left to tell anyone.
    .catch(() => res.destroy());
}

/** Next's door (app/api/agent/v1/[...path]/route.ts). */
export async function dispatchRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const reply = await dispatch({
    method: req.method,
    url: url.pathname + url.search,
    headers: req.headers,
    readBody: () => readJson(req),
  });
  const { text, headers } = encode(reply);
  return new Response(text, { status: reply.status, headers });
}
