import "server-only";
import http from "node:http";
import type net from "node:net";
import { bodyLimitFor, declaresMoreThan } from "@/lib/domain/body-limits";
import { ApiError, errorReply } from "@/lib/server/api/errors";

// Both servers (console and agent port) bound every request body here, before anything that would
// read it runs: next-auth's routes and Next's proxy buffer a whole body before any check of
// theirs, and a body nobody reads is still read to its end after a kept-alive answer (to find the
// next request). The limits are lib/domain/body-limits.ts.

/**
 * The servers' request class (http.createServer's `IncomingMessage` option): counts a body's bytes
 * as the HTTP parser hands them over, before any reader buffers them. The chunk that crosses the
 * route's limit still goes through, so a reader with its own limit answers its own 413; after it
 * nothing more is taken, which stops the parser reading the socket, and the request is refused.
 */
export class BoundedRequest extends http.IncomingMessage {
  private received = 0;
  private limit = -1;
  private cut = false;
  private onOverflow: (() => void) | null = null;

  /** Takes no more of the body: the parser stops reading the connection. */
  stopTaking(): void {
    this.cut = true;
  }

  /** The body's limit, and what to do when it crosses it (until then: its route's, and drop the connection). */
  bound(limit: number, onOverflow: () => void): void {
    this.limit = limit;
    this.onOverflow = onOverflow;
  }

  // A reader that asks for more after the cut would restart the socket's reading (and this class
  // would drop what it read): nothing more is read at all.
  override _read(size: number): void {
    if (!this.cut) super._read(size);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null || chunk === undefined) return super.push(chunk, encoding);
    if (this.cut) return false;
    if (this.limit < 0) this.limit = bodyLimitFor(this.url ?? "/");
    this.received += (chunk as Buffer).length;
    if (this.received <= this.limit) return super.push(chunk, encoding);
    this.cut = true;
    super.push(chunk, encoding);
    if (this.onOverflow) this.onOverflow();
    else this.socket.destroy();
    return false;
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `The request body is larger than ${limit / 1024} KiB.`);
}

/** How long a refused connection waits for its client to read the 413 and go before it is cut. */
const LINGER_MS = 2_000;

/**
 * Closes a connection whose request body was refused part-way. Closing a socket with data still
 * unread makes the kernel reset the connection, and a reset can reach the client before it has
 * read the answer (it then sees only "connection reset"): so the answer and a FIN go first, no
 * more is read (the request takes nothing, so the parser stops reading), and the socket is cut
 * when the client closes its side or after LINGER_MS.
 */
function lingerThenClose(socket: net.Socket): void {
  if (socket.destroyed || socket.writableEnded) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once("end", () => socket.destroy());
  socket.once("close", () => clearTimeout(timer));
}

/** Node closes a `connection: close` answer's socket with destroySoon once it is written. */
function closeGently(socket: net.Socket): void {
  socket.destroySoon = () => lingerThenClose(socket);
}

/** 413, then the connection closed without reading the rest of the body. */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, limit: number): void {
  if (req instanceof BoundedRequest) req.stopTaking();
  // (The request's: an answer already written has let go of its socket.)
  const socket = req.socket;
  closeGently(socket);
  if (res.headersSent) {
    // Its handler answered already: the connection closes once that answer is written.
    if (res.writableFinished) lingerThenClose(socket);
    else res.once("finish", () => lingerThenClose(socket));
    return;
  }
  const { status, body } = errorReply(tooLarge(limit));
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    "x-content-type-options": "nosniff",
    connection: "close",
  });
  res.end(json);
}

/**
 * Called first for every request on both ports: false when it was refused (a Content-Length over
 * the route's limit: 413 at once, nothing read). Otherwise a body that streams past the limit is
 * refused as it crosses it: 413 if its handler has not answered yet (a reader that checks its own
 * limit answers first), and the connection closed.
 */
export function admitBody(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const limit = bodyLimitFor(req.url ?? "/");
  if (declaresMoreThan(req.headers["content-length"], limit)) {
    refuse(req, res, limit);
    return false;
  }
  // Its handler had a turn first: an answer of its own (with its own wording) wins.
  // A reader's own refusal closes the connection gently as well (closeGently is in place before it answers).
  if (req instanceof BoundedRequest)
    req.bound(limit, () => {
      closeGently(req.socket);
      setImmediate(() => refuse(req, res, limit));
    });
  return true;
}

/**
 * A client that asks before sending (`Expect: 100-continue`, as curl does for large bodies) is
 * told 413 instead of "continue" when its declared body is over the limit, so it never sends it.
 * Without this Node answers "continue" to everyone before the request handler runs.
 */
export function refuseBeforeContinue(server: http.Server): void {
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (declaresMoreThan(req.headers["content-length"], bodyLimitFor(req.url ?? "/"))) {
      admitBody(req, res);
      return;
    }
    res.writeContinue();
    server.emit("request", req, res);
  });
}
