import "server-only";
import { env } from "@/lib/env";
import { ApiError, errorReply, knownError } from "@/lib/server/api/errors";
import { RateLimiter } from "@/lib/server/agent-port/rate-limit";
import { signingAdmission } from "@/lib/server/agent-port/admission";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";

const countAttempt = (result: string) =>
  incCounter("fleet_registration_attempts_total", "Registration attempts on this instance, by result code.", { result });
import { registerCluster, type RegistrationTrace } from "./register-cluster";
import { recordAttempt } from "./registration-attempts";
import { deferredAttempts } from "./deferred-attempts";
import { processSingleton } from "@/lib/server/process-singletons";

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };

function limiter() {
  return processSingleton(
    "registration-limiter",
    () => new RateLimiter(env().REGISTRATION_RATE_PER_MINUTE, env().REGISTRATION_RATE_BURST),
  );
}

function nameFrom(body: unknown): string | null {
  const name = body && typeof body === "object" ? (body as { name?: unknown }).name : null;
  return typeof name === "string" ? name : null;
}

/**
 * POST /api/agent/v1/register as a whole: the per-address rate limit, admission control, the
 * registration, and an attempt-log entry for every outcome but a 429 (a success's entry, and a
 * request's first wait for approval, are written in their transactions; an `overloaded` one later,
 * in a batch; refusals past their source's budget are counted, not itemised).
 * The register entry of the protocol table (lib/server/agent-port/protocol-handlers.ts).
 */
export async function handleRegistration(req: {
  /** The bearer token the request carried (null: none). */
  token: string | null;
  sourceAddress: string | null;
  readBody: () => Promise<unknown>;
}): Promise<Reply> {
  let body: unknown = null;
  const trace: RegistrationTrace = { sourceAddress: req.sourceAddress };
  try {
    const wait = limiter().take(req.sourceAddress ?? "unknown");
    if (wait !== null) {
      throw new ApiError("rate_limited", `Too many registrations from this address; retry in ${wait}s.`, undefined, {
        "retry-after": String(wait),
      });
    }
    body = await req.readBody();
    // After the per-address limit, so one noisy address cannot fill the queue for everyone, and
    // after the body, so a slow upload does not hold a signing slot.
    const result = await signingAdmission().run(() => registerCluster(req.token, body, trace));
    if (result.kind === "pending") {
      // Recorded as "pending_approval" in the attempt log when first recorded, not on each repeat.
      countAttempt("pending_approval");
      return { status: 202, body: result.reply, headers: { "retry-after": String(result.reply.retryAfterSeconds) } };
    }
    countAttempt("ok");
    return { status: 201, body: result.response };
  } catch (caught) {
    // A database fault is counted and recorded as the 503 it is answered with, not as "internal".
    const err = knownError(caught);
    const code = err instanceof ApiError ? err.code : "internal";
    countAttempt(code);
    // Refused for load: a row written now would add a database write exactly when there is no
    // room for one; the refusal is noted in memory and written with the others in one batch.
    if (code === "overloaded") {
      deferredAttempts().record({ sourceAddress: req.sourceAddress, clusterName: nameFrom(body), bearer: req.token });
      return errorReply(err);
    }
    // A 429 writes and logs nothing (the counter has it): it is the cheap answer to a flood.
    if (code === "rate_limited") return errorReply(err);
    // Past its source's budget a refusal is counted, not itemised (recordAttempt).
    await recordAttempt({
      result: code,
      sourceAddress: req.sourceAddress,
      tokenId: trace.tokenId ?? null,
      clusterName: nameFrom(body),
      message: err instanceof ApiError ? err.message : "internal error",
    }).catch((e) => log.error("could not record registration attempt", { error: String(e) }));
    if (err instanceof ApiError) {
      log.info("registration refused", { code, sourceAddress: req.sourceAddress, tokenId: trace.tokenId, name: nameFrom(body) });
    }
    return errorReply(err);
  }
}
