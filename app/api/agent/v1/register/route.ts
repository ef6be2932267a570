import { env } from "@/lib/env";
import { agentRoute } from "@/lib/server/agents/agent-route";
import { RateLimiter } from "@/lib/server/agents/rate-limit";
import { ApiError } from "@/lib/server/api/errors";
import { readJson } from "@/lib/server/api/read-body";
import { registerCluster } from "@/lib/server/clusters/register-cluster";
import { recordAttempt } from "@/lib/server/clusters/registration-attempts";
import { log } from "@/lib/server/log";

const limiter = new RateLimiter(env().REGISTRATION_RATE_PER_MINUTE, env().REGISTRATION_RATE_BURST);

function nameFrom(body: unknown): string | null {
  const name = body && typeof body === "object" ? (body as { name?: unknown }).name : null;
  return typeof name === "string" ? name : null;
}

export const POST = agentRoute(async ({ req, sourceAddress }) => {
  let body: unknown = null;
  const trace: { tokenId?: string } = {};
  try {
    const wait = limiter.take(sourceAddress ?? "unknown");
    if (wait !== null) {
      throw new ApiError("rate_limited", `Too many registrations from this address; retry in ${wait}s.`, undefined, {
        "retry-after": String(wait),
      });
    }
    body = await readJson(req);
    const result = await registerCluster(req.headers.get("authorization"), body, trace);
    await recordAttempt({
      result: "ok",
      sourceAddress,
      tokenId: trace.tokenId,
      clusterName: result.name,
      clusterId: result.clusterId,
    });
    return Response.json(result.response, { status: 201 });
  } catch (err) {
    const code = err instanceof ApiError ? err.code : "internal";
    await recordAttempt({
      result: code,
      sourceAddress,
      tokenId: trace.tokenId ?? null,
      clusterName: nameFrom(body),
      message: err instanceof ApiError ? err.message : "internal error",
    }).catch((e) => log.error("could not record registration attempt", { error: String(e) }));
    if (err instanceof ApiError)
      log.info("registration refused", { code, sourceAddress, tokenId: trace.tokenId, name: nameFrom(body) });
    throw err;
  }
});
