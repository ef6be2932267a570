// The agent protocol spoken directly from a test, as an agent would (its own CSR, TLS to the agent
// port), for specs that need a registered cluster without running the agent process.
import { randomBytes } from "node:crypto";
import type { PlaywrightWorkerArgs } from "@playwright/test";
import { registrationBody } from "../../tests/helpers/agent-client";
import { AGENT_PORT } from "./run";

export type RegisterAnswer = { status: number; body: { error?: string; message?: string; clusterId?: string } };

/** POST /api/agent/v1/register with `token` for `name`, a fresh key and a random CA fingerprint. */
export async function registerThroughAgentPort(
  playwright: PlaywrightWorkerArgs["playwright"],
  token: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<RegisterAnswer> {
  const agent = await playwright.request.newContext({ baseURL: `https://127.0.0.1:${AGENT_PORT}`, ignoreHTTPSErrors: true });
  try {
    const res = await agent.post("/api/agent/v1/register", {
      headers: { authorization: `Bearer ${token}` },
      data: registrationBody(name, { caFingerprint: `sha256:${randomBytes(32).toString("hex")}`, labels }, { commonName: name })
        .body,
    });
    return { status: res.status(), body: (await res.json()) as RegisterAnswer["body"] };
  } finally {
    await agent.dispose();
  }
}
