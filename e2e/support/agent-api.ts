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

export type Directive = { id: string; type: string; version?: string; nodePool?: string };

export type HeartbeatOptions = {
  agentVersion?: string;
  apiServer?: "ok" | "down";
  /** optional protocol fields, sent only when given */
  capabilities?: string[];
  nodePools?: { name: string; nodeCount: number; readyNodes: number; kubeletVersion?: string; instanceType?: string }[];
  workloads?: { pods: number; namespaces: number; userPods?: number };
};

/** A registered cluster whose heartbeats the test sends itself (mutual TLS with its own certificate). */
export type TestAgent = {
  clusterId: string;
  name: string;
  /** One heartbeat; answers the directives it carries (acknowledged on the next one). */
  heartbeat: (opts?: HeartbeatOptions) => Promise<Directive[]>;
  dispose: () => Promise<void>;
};

/** Registers `name` with `token` and returns a handle that heartbeats as that cluster. */
export async function enrolTestAgent(
  playwright: PlaywrightWorkerArgs["playwright"],
  token: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<TestAgent> {
  const origin = `https://127.0.0.1:${AGENT_PORT}`;
  const reg = await playwright.request.newContext({ baseURL: origin, ignoreHTTPSErrors: true });
  const { body, key } = registrationBody(
    name,
    { caFingerprint: `sha256:${randomBytes(32).toString("hex")}`, labels },
    { commonName: name },
  );
  const res = await reg.post("/api/agent/v1/register", { headers: { authorization: `Bearer ${token}` }, data: body });
  const answer = (await res.json()) as { clusterId?: string; certificate?: string; message?: string };
  await reg.dispose();
  if (res.status() !== 201 || !answer.clusterId || !answer.certificate)
    throw new Error(`register ${name}: ${res.status()} ${answer.message ?? ""}`);
  const agent = await playwright.request.newContext({
    baseURL: origin,
    ignoreHTTPSErrors: true,
    clientCertificates: [{ origin, cert: Buffer.from(answer.certificate), key: Buffer.from(key) }],
  });
  let acks: string[] = [];
  return {
    clusterId: answer.clusterId,
    name,
    heartbeat: async ({ agentVersion = "1.4.0", apiServer = "ok", ...optional }: HeartbeatOptions = {}) => {
      const hb = await agent.post("/api/agent/v1/heartbeat", {
        data: { agentVersion, kubernetesVersion: "1.30.2", health: { apiServer, logs: true, metrics: true }, acks, ...optional },
      });
      if (!hb.ok()) throw new Error(`heartbeat ${name}: ${hb.status()} ${await hb.text()}`);
      const directives = ((await hb.json()) as { directives?: Directive[] }).directives ?? [];
      acks = directives.map((d) => d.id);
      return directives;
    },
    dispose: () => agent.dispose(),
  };
}
