import "server-only";
import type http from "node:http";
import type { z } from "zod";
import { JSON_BODY_BYTES } from "@/lib/domain/body-limits";
import { unstorableTextPath } from "@/lib/domain/storable-text";
import { ApiError } from "./errors";

/** The limit the custom server enforces for the agent protocol and the admin API (lib/domain/body-limits.ts). */
export const MAX_BODY_BYTES = JSON_BODY_BYTES;

/**
 * Reads a JSON body of at most `limit` bytes. The size is checked from Content-Length first and
 * then while streaming, so an oversized body is refused before it is buffered or parsed.
 */
export async function readJson(req: Request, limit = MAX_BODY_BYTES): Promise<unknown> {
  const empty: AsyncIterable<Uint8Array> = (async function* () {})();
  return readJsonStream(
    (req.body as AsyncIterable<Uint8Array> | null) ?? empty,
    req.headers.get("content-length"),
    req.headers.get("content-type"),
    limit,
  );
}

/** The same for any byte stream. */
export async function readJsonStream(
  stream: AsyncIterable<Uint8Array>,
  contentLength: string | null | undefined,
  contentType: string | null | undefined,
  limit = MAX_BODY_BYTES,
): Promise<unknown> {
  checkHeaders(contentLength, contentType, limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw cutShort();
  }
  return parseJson(chunks);
}

/**
 * The same for a Node request (the agent port's direct path), read from its events: an async
 * iterator costs a few promises per chunk, on every heartbeat. A body refused part-way is left
 * unread, not destroyed, so the refusal can still be answered (the caller closes the connection).
 */
export function readJsonNode(req: http.IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  return new Promise((resolve, reject) => {
    checkHeaders(req.headers["content-length"], req.headers["content-type"], limit);
    const chunks: Buffer[] = [];
    // Already read to its end, or gone: as the stream reader would see it.
    if (req.readableEnded) return resolve(parseJson(chunks));
    if (req.destroyed) return reject(cutShort());
    let size = 0;
    const done = (err: ApiError | null) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (err) {
        req.pause();
        reject(err);
      } else {
        try {
          resolve(parseJson(chunks));
        } catch (e) {
          reject(e);
        }
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) done(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => done(null);
    const onError = () => done(cutShort());
    // Closed before its end: the client went away (Node does not always say so with an error).
    const onClose = () => done(cutShort());
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

function checkHeaders(contentLength: string | null | undefined, contentType: string | null | undefined, limit: number) {
  if (Number(contentLength ?? "0") > limit) throw tooLarge(limit);
  if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new ApiError("unsupported_media_type", "Send the body as application/json.");
  }
}

// The client went away part-way (Node's "aborted", ECONNRESET): its fault, not a server error.
export const cutShort = () => new ApiError("invalid_request", "The request body ended before Content-Length was reached.");

function parseJson(chunks: Uint8Array[]): unknown {
  const one = chunks.length === 1 ? chunks[0]! : null;
  const bytes = one ? Buffer.from(one.buffer, one.byteOffset, one.byteLength) : Buffer.concat(chunks);
  const text = bytes.toString("utf8");
  if (text.trim() === "") throw new ApiError("invalid_request", "The request body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The request body is not valid JSON.");
  }
}

export function tooLarge(limit = MAX_BODY_BYTES) {
  return new ApiError("payload_too_large", `The request body is larger than ${limit / 1024} KiB.`);
}

/** zod issues as `details`: one entry per offending field. */
export function fieldDetails(error: z.ZodError) {
  return error.issues.flatMap((i) => {
    const at = i.path.join(".");
    if (i.code === "unrecognized_keys") {
      return i.keys.map((k) => ({ field: at ? `${at}.${k}` : k, message: "is not a known field" }));
    }
    // A custom rule may say which limit was crossed (e.g. a selector's terms: lib/domain/selector.ts).
    const limit = i.code === "custom" && i.params ? i.params : {};
    return [{ ...limit, field: at || "(body)", message: i.message }];
  });
}

/**
 * `plain`: a hand-written check of the common shape that gives what the schema would, or null to
 * let the schema decide (and word any refusal).
 */
export function parseWith<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what = "request body",
  plain?: (value: unknown) => z.infer<T> | null,
): z.infer<T> {
  const fast = plain?.(value);
  if (fast) {
    refuseUnstorable(fast, what);
    return fast;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const details = fieldDetails(parsed.error);
    const fields = [...new Set(details.map((d) => d.field))].join(", ");
    // One problem is spelled out in the message too, so a terminal or a log line shows it.
    const only = details.length === 1 ? details[0] : undefined;
    throw new ApiError(
      "invalid_request",
      `The ${what} is invalid (${only ? `${only.field}: ${only.message}` : fields}).`,
      details,
    );
  }
  // The schema's output is what gets stored: a NUL or a lone surrogate in it would fail the write.
  refuseUnstorable(parsed.data, what);
  return parsed.data;
}

/** 400 naming the first field of `value` with text the databases cannot store (NUL, lone surrogate). */
export function refuseUnstorable(value: unknown, what: string): void {
  const field = unstorableTextPath(value);
  if (field === null) return;
  const message = "contains a NUL character or a lone surrogate, which cannot be stored";
  throw new ApiError("invalid_request", `The ${what} is invalid (${field}: ${message}).`, [{ field, message }]);
}
