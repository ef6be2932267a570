// Registration's source address (its per-address rate limit and the attempts log) on the engine
// TEST_ENGINE picks, through the agent protocol's one door as the agent port calls it: the client's
// address comes from the one helper every other reader uses, so X-Forwarded-For counts only from a
// proxy in TRUSTED_PROXY_CIDRS, and a header an untrusted peer sends changes nothing.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { dispatch } from "@/lib/server/agent-port/protocol-dispatch";
import { db } from "@/lib/server/db/client";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

// Read once, at the configuration's first use (lib/env.ts): a proxy on loopback, a small burst.
process.env.TRUSTED_PROXY_CIDRS = "127.0.0.1/32, fd00::/8";
process.env.REGISTRATION_RATE_BURST = "3";
process.env.REGISTRATION_RATE_PER_MINUTE = "1";

appDatabase();

/** A registration with a token this fleet never minted, as the agent port hands it to dispatch. */
function register(peer: string, forwardedFor?: string) {
  return dispatch({
    method: "POST",
    url: "/api/agent/v1/register",
    headers: new Headers({
      [IDENTITY_HEADERS.agentPort]: "1",
      [IDENTITY_HEADERS.remoteAddress]: peer,
      authorization: "Bearer frt_nosuchtoken_0123456789abcdef0123456789abcdef",
      ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }),
    }),
    readBody: async () => ({ name: "spoofed" }),
  });
}

async function sources(): Promise<string[]> {
  const rows = await db().registrationAttempt.findMany({ select: { sourceAddress: true }, orderBy: { id: "asc" } });
  return [...new Set(rows.map((r) => r.sourceAddress ?? "null"))];
}

describe(`registration's source address on ${testEngine()}`, () => {
  test("an untrusted peer's X-Forwarded-For is ignored: the attempts log and the rate limit see the peer", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await register("203.0.113.9", `198.51.100.${i + 1}`)).status);
    assert.deepEqual(answers, [401, 401, 401, 429], "a new forged address each time does not escape the limit");
    assert.deepEqual(await sources(), ["203.0.113.9"]);
  });

  test("behind a trusted proxy the nearest untrusted hop is the source, walking right to left", async () => {
    await db().registrationAttempt.deleteMany();
    assert.equal((await register("127.0.0.1", "192.0.2.1, 198.51.100.77")).status, 401);
    assert.equal((await register("fd00::1", "[2001:DB8::7]:443, fd00::2")).status, 401);
    assert.deepEqual(await sources(), ["198.51.100.77", "2001:db8::7"]);
  });
});
