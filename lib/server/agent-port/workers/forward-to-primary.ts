import "server-only";
import type http from "node:http";
import { cutShort, MAX_BODY_BYTES, readJsonStream, tooLarge } from "@/lib/server/api/read-body";
import { answerNode, dispatch, dispatchNode } from "../protocol-dispatch";
import type { ProtocolReply } from "../protocol-handlers";
import { onPrimary } from "./primary-calls";

// What an agent-port worker answers itself and what it hands to the primary. Heartbeats (nearly
// every request) and the CA certificate are answered in the worker; registration and rotation,
// which sign, rate-limit and queue for admission fleet-wide, are answered by the primary as they
// were received, identity headers included (the worker set them, after stripping any sent).

const ANSWERED_IN_WORKER = new Set(["/api/agent/v1/heartbeat", "/api/agent/v1/ca"]);

type Forwarded = {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as received, or why it could not be read whole. */
  body: Uint8Array | "too_large" | "cut_short";
};

const dispatchOnPrimary = onPrimary(
  "dispatch",
  (f: Forwarded): Promise<ProtocolReply> =>
    dispatch({
      method: f.method,
      url: f.url,
      headers: new Headers(f.headers),
      readBody: async () => {
        if (f.body === "too_large") throw tooLarge();
        if (f.body === "cut_short") throw cutShort();
        const bytes = f.body;
        return readJsonStream(
          (async function* () {
            yield bytes;
          })(),
          f.headers["content-length"],
          f.headers["content-type"],
        );
      },
    }),
  "primary",
);

/** The worker's protocol handler (createAgentServer's serveProtocol). */
export function serveInWorker(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = req.url ?? "/";
  const end = url.search(/[?#]/);
  if (ANSWERED_IN_WORKER.has(end < 0 ? url : url.slice(0, end))) return dispatchNode(req, res);
  answerNode(
    res,
    readRaw(req).then((body) => dispatchOnPrimary({ method: req.method ?? "GET", url, headers: plainHeaders(req), body })),
  );
}

function plainHeaders(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** The body's bytes, at most the protocol's limit (the primary answers what a bad body means). */
function readRaw(req: http.IncomingMessage): Promise<Forwarded["body"]> {
  return new Promise((resolve) => {
    if (Number(req.headers["content-length"] ?? "0") > MAX_BODY_BYTES) return resolve("too_large");
    if (req.readableEnded) return resolve(new Uint8Array());
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (body: Forwarded["body"]) => {
      req.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose);
      if (typeof body === "string") req.pause();
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) done("too_large");
      else chunks.push(chunk);
    };
    const onEnd = () => done(new Uint8Array(Buffer.concat(chunks)));
    const onClose = () => done("cut_short");
    req.on("data", onData).on("end", onEnd).on("close", onClose).on("error", onClose);
  });
}
