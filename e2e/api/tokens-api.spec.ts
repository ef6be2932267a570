// The registration-token endpoints called directly: who may mint and revoke, what a mint answers
// (the secret once, never again), the TTL bounds, and the attempts log a refused agent leaves.
import { randomBytes } from "node:crypto";
import { makeCsr } from "../../tests/helpers/csr";
import { AGENT_PORT } from "../support/run";
import { expect, expectApiError, SAME_ORIGIN, test } from "../fixtures";

type Token = {
  id: string;
  token?: string;
  name: string;
  status: string;
  expiresAt: string;
  maxClusters: number;
  usedClusters: number;
  allowedLabels: unknown;
  fixedLabels: Record<string, string>;
  revokedAt: string | null;
};

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}`;

test("a viewer may list tokens but not mint or revoke them", async ({ apiAs }) => {
  const viewer = await apiAs("viewer");
  expect((await viewer.get("/api/v1/registration-tokens")).status()).toBe(200);
  await expectApiError(
    await viewer.post("/api/v1/registration-tokens", { data: { name: unique("viewer") }, headers: SAME_ORIGIN }),
    403,
    "forbidden",
  );
  const operator = await apiAs("operator");
  const minted = (await (
    await operator.post("/api/v1/registration-tokens", { data: { name: unique("victim") }, headers: SAME_ORIGIN })
  ).json()) as Token;
  await expectApiError(
    await viewer.delete(`/api/v1/registration-tokens/${minted.id}`, { headers: SAME_ORIGIN }),
    403,
    "forbidden",
  );
  const after = (await (await viewer.get("/api/v1/registration-tokens")).json()) as { items: Token[] };
  expect(after.items.find((t) => t.id === minted.id)?.status).toBe("active");
});

test("without a same-origin Origin header a session cannot mint", async ({ apiAs }) => {
  const operator = await apiAs("operator");
  await expectApiError(
    await operator.post("/api/v1/registration-tokens", {
      data: { name: unique("csrf") },
      headers: { Origin: "https://evil.example" },
    }),
    403,
    "csrf_rejected",
  );
});

test("an operator mints: the token appears once, with the defaults, and never in the list", async ({ apiAs }) => {
  const operator = await apiAs("operator");
  const name = unique("defaults");
  const before = Date.now();
  const res = await operator.post("/api/v1/registration-tokens", {
    data: { name, allowedLabels: { region: ["eu-west-1"], tier: "*" }, fixedLabels: { env: "prod" } },
    headers: SAME_ORIGIN,
  });
  expect(res.status()).toBe(201);
  expect(res.headers()["cache-control"]).toContain("no-store");
  const minted = (await res.json()) as Token;
  expect(minted.token).toMatch(new RegExp(`^frt_${minted.id}_[A-Za-z0-9_-]{22,}$`));
  expect(minted).toMatchObject({ name, status: "active", maxClusters: 1, usedClusters: 0, revokedAt: null });
  expect(minted.allowedLabels).toEqual({ region: ["eu-west-1"], tier: "*" });
  expect(minted.fixedLabels).toEqual({ env: "prod" });
  // Default TTL: 2 hours.
  const ttl = Date.parse(minted.expiresAt) - before;
  expect(ttl).toBeGreaterThan(2 * 3600_000 - 60_000);
  expect(ttl).toBeLessThan(2 * 3600_000 + 60_000);

  const listText = await (await operator.get("/api/v1/registration-tokens")).text();
  expect(listText).not.toContain(minted.token!);
  const listed = (JSON.parse(listText) as { items: Token[] }).items.find((t) => t.id === minted.id);
  expect(listed).toBeTruthy();
  expect(listed).not.toHaveProperty("token");
  expect(JSON.stringify(listed)).not.toMatch(/hash/i);
});

test("TTLs outside 1 minute .. 30 days and bad label scopes are refused with the field named", async ({ apiAs }) => {
  const operator = await apiAs("operator");
  for (const data of [
    { name: unique("short"), ttlSeconds: 59 },
    { name: unique("long"), ttlSeconds: 30 * 86_400 + 1 },
    { name: unique("zero"), maxClusters: 0 },
    { name: unique("scope"), allowedLabels: { "Bad Key!": "*" } },
    { name: unique("values"), allowedLabels: { env: [] } },
  ]) {
    const body = await expectApiError(
      await operator.post("/api/v1/registration-tokens", { data, headers: SAME_ORIGIN }),
      400,
      "invalid_request",
    );
    expect(Array.isArray(body.details), JSON.stringify(body)).toBe(true);
  }
  const max = await operator.post("/api/v1/registration-tokens", {
    data: { name: unique("thirty-days"), ttlSeconds: 30 * 86_400 },
    headers: SAME_ORIGIN,
  });
  expect(max.status()).toBe(201);
});

test("revoking is idempotent, and a revoked token's registration is refused and logged against it", async ({
  apiAs,
  playwright,
}) => {
  const operator = await apiAs("operator");
  const minted = (await (
    await operator.post("/api/v1/registration-tokens", { data: { name: unique("revoke") }, headers: SAME_ORIGIN })
  ).json()) as Token;
  const first = await operator.delete(`/api/v1/registration-tokens/${minted.id}`, { headers: SAME_ORIGIN });
  expect(first.status()).toBe(200);
  const revoked = (await first.json()) as Token;
  expect(revoked.status).toBe("revoked");
  expect(revoked.revokedAt).not.toBeNull();
  const again = await operator.delete(`/api/v1/registration-tokens/${minted.id}`, { headers: SAME_ORIGIN });
  expect(again.status()).toBe(200);
  expect(((await again.json()) as Token).revokedAt).toBe(revoked.revokedAt);
  await expectApiError(await operator.delete(`/api/v1/registration-tokens/nope`, { headers: SAME_ORIGIN }), 404, "not_found");

  const name = unique("refused");
  const agent = await playwright.request.newContext({ baseURL: `https://127.0.0.1:${AGENT_PORT}`, ignoreHTTPSErrors: true });
  try {
    const res = await agent.post("/api/agent/v1/register", {
      headers: { authorization: `Bearer ${minted.token}` },
      data: {
        name,
        apiServerUrl: "https://api.example:6443",
        caFingerprint: `sha256:${randomBytes(32).toString("hex")}`,
        agentVersion: "1.4.0",
        kubernetesVersion: "1.30.2",
        labels: { env: "dev", region: "eu-west-1" },
        csr: makeCsr({ commonName: name }).csr,
      },
    });
    await expectApiError(res, 401, "token_revoked");
  } finally {
    await agent.dispose();
  }

  const log = (await (await operator.get(`/api/v1/registration-attempts?tokenId=${minted.id}&result=token_revoked`)).json()) as {
    items: { result: string; tokenId: string; clusterName: string; sourceAddress: string | null }[];
  };
  expect(log.items).toHaveLength(1);
  expect(log.items[0]).toMatchObject({ result: "token_revoked", tokenId: minted.id, clusterName: name });
  const after = (await (await operator.get("/api/v1/registration-tokens")).json()) as { items: Token[] };
  expect(after.items.find((t) => t.id === minted.id)?.usedClusters).toBe(0);
});
