// Re-registration needs proof (docs/protocol.md, "Re-registration"): the
// kept key of a certificate not revoked by an operator, or a token bound to the cluster. Against
// the real server over real TLS, on the engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { csrForKey, makeCsr } from "../helpers/csr";
import { heartbeatBody, mintToken, registerWith, registrationBody, rideOut } from "../helpers/agent-client";
import { startFleetServer, type ClientCert, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;
const FP = (c: string) => `sha256:${c.repeat(64)}`;

before(async () => {
  server = await startFleetServer({ REGISTRATION_RATE_PER_MINUTE: "6000", REGISTRATION_RATE_BURST: "1000" });
});
after(async () => {
  await server?.stop();
});

type Token = { id: string; token: string; usedClusters: number; clusterId: string | null };

const mint = (body: Record<string, unknown> = {}) => mintToken(server, body) as Promise<Token>;

async function tokenListed(id: string): Promise<Token & { status: string }> {
  const res = await server.api("GET", "/api/v1/registration-tokens");
  return res.body.items.find((t: Token) => t.id === id);
}

/**
 * POST /register; `key` reuses a private key (a kept key), else a fresh one is made. A 503
 * overloaded (the signing gate, on a busy machine) is ridden out: it decides nothing here.
 */
async function register(token: string, name: string, extra: Record<string, unknown> = {}, key?: string) {
  const made = registrationBody(name, { labels: { region: "eu-west-1" }, ...(key ? { csr: csrForKey(key) } : {}), ...extra });
  const res = await rideOut(() => registerWith(server, token, made.body), Date.now() + 60_000);
  const kept = key ?? made.key;
  return { res, key: kept, client: { cert: res.body.certificate as string, key: kept } as ClientCert };
}

const heartbeat = (client: ClientCert) => server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client });

const cluster = async (id: string) => (await server.api("GET", `/api/v1/clusters/${id}`)).body;

async function auditOf(action: string, clusterId: string) {
  const res = await server.api("GET", `/api/v1/audit?action=${action}&target=${clusterId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.items as { action: string; details: Record<string, unknown> }[];
}

/** A cluster registered by a token fixing env=prod, with its real agent's key and certificate. */
async function victim(name: string) {
  const p = await mint({ fixedLabels: { env: "prod" } });
  const reg = await register(p.token, name);
  assert.equal(reg.res.status, 201, JSON.stringify(reg.res.body));
  return { clusterId: reg.res.body.clusterId as string, key: reg.key, client: reg.client, token: p };
}

describe("no takeover by re-registration", () => {
  test("another token with the victim's name and CA fingerprint but its own key is 409; the real agent carries on", async () => {
    const v = await victim("victim");
    const before = await cluster(v.clusterId);
    const d = await mint({ fixedLabels: { env: "dev" }, maxClusters: 5 });
    const attack = await register(d.token, "victim", {
      caFingerprint: before.caFingerprint,
      apiServerUrl: "https://attacker.example:6443",
      labels: { region: "us-east-1" },
    });
    assert.equal(attack.res.status, 409, JSON.stringify(attack.res.body));
    assert.equal(attack.res.body.error, "cluster_conflict");

    const hb = await heartbeat(v.client);
    assert.equal(hb.status, 200, "the real agent's certificate still works");
    const after = await cluster(v.clusterId);
    assert.deepEqual(after.labels, { env: "prod", region: "eu-west-1" });
    assert.equal(after.apiServerUrl, before.apiServerUrl);
    assert.equal(after.certificate.serial, before.certificate.serial);
    assert.equal((await tokenListed(d.id)).usedClusters, 0, "a refusal spends nothing");
    assert.equal((await auditOf("cluster.reregister", v.clusterId)).length, 0);
  });

  test("kept key: a retry with an exhausted token re-registers without spending a use; labels and identity stay", async () => {
    const v = await victim("keeper");
    assert.equal((await tokenListed(v.token.id)).status, "exhausted");
    // An operator edits the labels in the console meanwhile: the edit must survive.
    const patched = await server.api("PATCH", `/api/v1/clusters/${v.clusterId}`, {
      labels: { env: "prod", region: "eu-west-1", team: "payments" },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const before = await cluster(v.clusterId);

    const retry = await register(
      v.token.token,
      "keeper",
      { labels: { env: "dev", region: "us-east-1", sneaky: "yes" }, apiServerUrl: "https://elsewhere.example:6443" },
      v.key,
    );
    assert.equal(retry.res.status, 201, JSON.stringify(retry.res.body));
    assert.equal(retry.res.body.clusterId, v.clusterId);
    assert.equal((await tokenListed(v.token.id)).usedClusters, 1, "no use consumed");

    const old = await heartbeat(v.client);
    assert.equal(old.status, 403, "the previous certificate is revoked");
    assert.equal(old.body.error, "certificate_revoked");
    assert.equal((await heartbeat(retry.client)).status, 200);

    const after = await cluster(v.clusterId);
    assert.deepEqual(after.labels, { env: "prod", region: "eu-west-1", team: "payments" }, "sent labels are ignored");
    assert.equal(after.apiServerUrl, before.apiServerUrl, "a kept key keeps the registered identity");
    assert.notEqual(after.certificate.serial, before.certificate.serial);

    const [entry] = await auditOf("cluster.reregister", v.clusterId);
    assert.equal(entry?.details.proof, "keptKey");
    assert.equal(entry?.details.tokenUseConsumed, false);
    assert.deepEqual((entry?.details.identity as Record<string, unknown>).apiServerUrl, {
      kept: before.apiServerUrl,
      reported: "https://elsewhere.example:6443",
    });
    const event = after.events.find((e: { reason: string }) => /re-registered/.test(e.reason));
    assert.match(event.reason, /proof: keptKey/);
  });

  test("kept key of a superseded certificate: the retry of a retry works too; an older key does not", async () => {
    const v = await victim("retry-twice");
    const first = await register(v.token.token, "retry-twice", {}, v.key);
    assert.equal(first.res.status, 201);
    // The answer was lost again; the agent retries once more with the same key.
    const second = await register(v.token.token, "retry-twice", {}, v.key);
    assert.equal(second.res.status, 201, JSON.stringify(second.res.body));
    // An agent that rotated to a new key cannot go back to an older one.
    const { csr, key: rotatedKey } = makeCsr();
    const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: second.client });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal((await heartbeat({ cert: rotated.body.certificate, key: rotatedKey })).status, 200);
    const stale = await register(v.token.token, "retry-twice", {}, v.key);
    assert.equal(stale.res.status, 409, JSON.stringify(stale.res.body));
    assert.equal(stale.res.body.error, "cluster_conflict");
  });

  test("the key of a certificate an operator revoked is no proof: 409", async () => {
    const v = await victim("revoked-key");
    const revoked = await server.api("POST", `/api/v1/clusters/${v.clusterId}/certificate/revoke`, {
      reason: "key leaked",
    });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const fresh = await mint();
    const retry = await register(fresh.token, "revoked-key", {}, v.key);
    assert.equal(retry.res.status, 409, JSON.stringify(retry.res.body));
    assert.equal(retry.res.body.error, "cluster_conflict");
    assert.equal((await tokenListed(fresh.id)).usedClusters, 0);
  });
});

describe("bound tokens", () => {
  test("a bound token re-enrols with a new key: one use, fixed labels over the stored ones, identity from the request", async () => {
    const v = await victim("rebuilt");
    await server.api("PATCH", `/api/v1/clusters/${v.clusterId}`, { labels: { env: "prod", region: "eu-west-1", team: "a" } });
    const before = await cluster(v.clusterId);
    const bound = await mint({ clusterId: v.clusterId, fixedLabels: { tier: "gold" } });
    assert.equal(bound.clusterId, v.clusterId);
    assert.equal((await tokenListed(bound.id)).clusterId, v.clusterId, "the list shows the binding");

    const reg = await register(bound.token, "rebuilt", {
      caFingerprint: FP("b"),
      apiServerUrl: "https://api.rebuilt-2.example:6443",
      labels: { env: "dev" },
    });
    assert.equal(reg.res.status, 201, JSON.stringify(reg.res.body));
    assert.equal(reg.res.body.clusterId, v.clusterId);
    assert.equal((await tokenListed(bound.id)).usedClusters, 1);
    assert.equal((await heartbeat(v.client)).status, 403, "the lost agent's certificate is revoked");
    assert.equal((await heartbeat(reg.client)).status, 200);

    const after = await cluster(v.clusterId);
    assert.deepEqual(after.labels, { env: "prod", region: "eu-west-1", team: "a", tier: "gold" });
    assert.equal(after.caFingerprint, FP("b"));
    assert.equal(after.apiServerUrl, "https://api.rebuilt-2.example:6443");
    const [entry] = await auditOf("cluster.reregister", v.clusterId);
    assert.equal(entry?.details.proof, "boundToken");
    assert.equal(entry?.details.tokenUseConsumed, true);
    assert.deepEqual((entry?.details.identity as Record<string, unknown>).caFingerprint, {
      from: before.caFingerprint,
      to: FP("b"),
    });
    const minted = await server.api("GET", `/api/v1/audit?action=token.mint&target=${bound.id}`);
    assert.deepEqual(minted.body.items[0].details.boundToCluster, { id: v.clusterId, name: "rebuilt" });

    // Spent: another new key with the same bound token is refused.
    const again = await register(bound.token, "rebuilt");
    assert.equal(again.res.status, 401);
    assert.equal(again.res.body.error, "token_exhausted");
  });

  test("a scoped bound token that does not allow a stored label is 403 naming it", async () => {
    const v = await victim("scoped-bound");
    const bound = await mint({ clusterId: v.clusterId, allowedLabels: { env: "*", region: ["eu-west-1"] } });
    await server.api("PATCH", `/api/v1/clusters/${v.clusterId}`, { labels: { env: "prod", region: "eu-west-1", team: "x" } });
    const reg = await register(bound.token, "scoped-bound");
    assert.equal(reg.res.status, 403, JSON.stringify(reg.res.body));
    assert.equal(reg.res.body.error, "label_not_allowed");
    assert.equal(reg.res.body.details.label, "team");
    assert.equal((await tokenListed(bound.id)).usedClusters, 0);
    assert.equal((await heartbeat(v.client)).status, 200);
  });

  test("a bound token registers only its cluster's name", async () => {
    const v = await victim("bound-home");
    await victim("bound-other");
    const bound = await mint({ clusterId: v.clusterId, maxClusters: 3 });
    for (const name of ["bound-other", "bound-brand-new"]) {
      const reg = await register(bound.token, name);
      assert.equal(reg.res.status, 409, `${name}: ${JSON.stringify(reg.res.body)}`);
      assert.equal(reg.res.body.error, "cluster_conflict");
      assert.match(reg.res.body.message, /bound to the cluster bound-home/);
    }
    assert.equal((await tokenListed(bound.id)).usedClusters, 0);
  });

  test("minting for an unknown cluster is 404; a viewer-less check of the binding field", async () => {
    const res = await server.api("POST", "/api/v1/registration-tokens", { name: "nobody", clusterId: "cl_doesnotexist" });
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.equal(res.body.error, "not_found");
    const plain = await mint();
    assert.equal(plain.clusterId, null);
  });

  test("concurrent registrations with a one-use bound token: exactly one succeeds", async () => {
    const v = await victim("bound-race");
    const bound = await mint({ clusterId: v.clusterId, maxClusters: 1 });
    const results = await Promise.all(Array.from({ length: 8 }, () => register(bound.token, "bound-race")));
    const ok = results.filter((r) => r.res.status === 201);
    assert.equal(ok.length, 1, `statuses: ${results.map((r) => `${r.res.status} ${r.res.body.error ?? ""}`).join(",")}`);
    assert.ok(results.filter((r) => r.res.status !== 201).every((r) => r.res.body.error === "token_exhausted"));
    assert.equal((await tokenListed(bound.id)).usedClusters, 1);
    assert.equal((await heartbeat(ok[0]!.client)).status, 200);
  });
});

describe("pre-created clusters", () => {
  test("pre-creating returns a bound claim token once; an unbound token cannot claim, the bound one can", async () => {
    const pre = await server.api("POST", "/api/v1/clusters", { name: "prov-1", labels: { region: "eu-west-1", team: "core" } });
    assert.equal(pre.status, 201, JSON.stringify(pre.body));
    assert.equal(pre.headers["cache-control"], "no-store");
    const claim = pre.body.registrationToken as Token;
    assert.match(claim.token, /^frt_/);
    assert.equal(claim.clusterId, pre.body.id);
    const listed = await tokenListed(claim.id);
    assert.equal(listed.clusterId, pre.body.id);
    assert.equal((listed as { token?: string }).token, undefined, "shown once");

    const other = await mint({ fixedLabels: { env: "prod" } });
    const stolen = await register(other.token, "prov-1");
    assert.equal(stolen.res.status, 409, JSON.stringify(stolen.res.body));
    assert.equal(stolen.res.body.error, "cluster_conflict");
    assert.equal((await cluster(pre.body.id)).phase, "Provisioning");
    assert.equal((await tokenListed(other.id)).usedClusters, 0);

    const claimed = await register(claim.token, "prov-1", { labels: { region: "us-east-1", env: "dev" } });
    assert.equal(claimed.res.status, 201, JSON.stringify(claimed.res.body));
    assert.equal(claimed.res.body.clusterId, pre.body.id);
    const detail = await cluster(pre.body.id);
    assert.equal(detail.phase, "Registration");
    assert.deepEqual(detail.labels, { region: "eu-west-1", team: "core", env: "dev" }, "the admin's presets win");
    const [entry] = await auditOf("cluster.register", pre.body.id);
    assert.equal(entry?.details.proof, "boundToken");
    assert.equal(entry?.details.claimed, true);
  });

  test("a bound token's fixed labels go over the presets", async () => {
    const pre = await server.api("POST", "/api/v1/clusters", { name: "prov-2", labels: { region: "eu-west-1", env: "prod" } });
    assert.equal(pre.status, 201);
    const bound = await mint({ clusterId: pre.body.id, fixedLabels: { env: "staging" } });
    const claimed = await register(bound.token, "prov-2", { labels: {} });
    assert.equal(claimed.res.status, 201, JSON.stringify(claimed.res.body));
    assert.deepEqual((await cluster(pre.body.id)).labels, { region: "eu-west-1", env: "staging" });
  });
});

describe("label keys named like Object.prototype members", () => {
  test("scopes and fixed labels with constructor/toString/hasOwnProperty work; __proto__ is a clean 400", async () => {
    const t = await mint({
      maxClusters: 5,
      allowedLabels: { constructor: ["a"], env: "*", region: "*", toString: "*" },
      fixedLabels: { toString: "x" },
    });
    const ok = await register(t.token, "proto-keys", { labels: { constructor: "a", env: "dev", region: "eu-west-1" } });
    assert.equal(ok.res.status, 201, JSON.stringify(ok.res.body));
    assert.deepEqual((await cluster(ok.res.body.clusterId)).labels, {
      constructor: "a",
      env: "dev",
      region: "eu-west-1",
      toString: "x",
    });

    const outside = await register(t.token, "proto-keys-2", { labels: { region: "eu-west-1", hasOwnProperty: "y" } });
    assert.equal(outside.res.status, 403, JSON.stringify(outside.res.body));
    assert.equal(outside.res.body.error, "label_not_allowed");
    assert.equal(outside.res.body.details.label, "hasOwnProperty");

    // A scope that does not name "constructor" refuses it (it used to crash with a 500).
    const narrow = await mint({ allowedLabels: { region: "*" } });
    const refused = await register(narrow.token, "proto-keys-3", { labels: { region: "eu-west-1", constructor: "z" } });
    assert.equal(refused.res.status, 403, JSON.stringify(refused.res.body));
    assert.equal(refused.res.body.details.label, "constructor");

    for (const body of [
      { name: "proto", fixedLabels: JSON.parse('{"__proto__":"x"}') },
      { name: "proto", allowedLabels: JSON.parse('{"__proto__":["x"]}') },
    ]) {
      const res = await server.api("POST", "/api/v1/registration-tokens", body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error, "invalid_request");
    }
    const sent = await register(t.token, "proto-keys-4", { labels: JSON.parse('{"region":"eu-west-1","__proto__":"x"}') });
    assert.equal(sent.res.status, 400, JSON.stringify(sent.res.body));
    assert.equal(sent.res.body.error, "invalid_request");
  });
});
