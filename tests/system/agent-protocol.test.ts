// The agent protocol (docs/protocol.md) against the real server over real TLS, on the
// engine TEST_ENGINE selects: registration and every error code, the token race, CSR abuse,
// mutual-TLS identity (and attempts to forge it), rotation, status transitions, live events.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import forge from "node-forge";
import { csrForKey, makeCsr } from "../helpers/csr";
import { heartbeatBody, mintToken, registerCluster, registerWith, registrationBody, rideOut } from "../helpers/agent-client";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;

before(async () => {
  // This file is the protocol's answers, not its load shedding (admission-lag.test.ts): with the
  // event-loop check on, a busy CI machine turns every registration into a 503 ride-out and the
  // file into minutes of Retry-After. The gate's in-flight and queue limits still apply.
  server = await startFleetServer({
    REGISTRATION_RATE_PER_MINUTE: "6000",
    REGISTRATION_RATE_BURST: "1000",
    SIGNING_MAX_EVENT_LOOP_LAG_MS: "0",
  });
});
after(async () => {
  await server?.stop();
});

const mint = (body: Record<string, unknown> = {}) => mintToken(server, body);

// Kubernetes versions with a leading v are accepted (docs/protocol.md).
const registration = (name: string, extra: Record<string, unknown> = {}, csrOpts = {}) =>
  registrationBody(name, { kubernetesVersion: "v1.30.2", ...extra }, csrOpts);

async function register(token: string, name: string, extra: Record<string, unknown> = {}, csrOpts = {}) {
  const r = registration(name, extra, csrOpts);
  // A 503 overloaded (the signing gate, on a busy machine) decides nothing here: ride it out.
  return { res: await rideOut(() => registerWith(server, token, r.body), Date.now() + 60_000), key: r.key };
}

const registered = (name: string) => registerCluster(server, name);

describe("registration", () => {
  test("happy path: 201 with id, certificate for CN=clusterId, CA, interval; heartbeat makes it Ready", async () => {
    const t = await mint({ maxClusters: 1 });
    assert.match(t.token, /^frt_[a-z0-9]+_[A-Za-z0-9_-]{32}$/);
    const { res, key } = await register(t.token, "happy-1", {}, { commonName: "something-else" });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.heartbeatPath, "/api/agent/v1/heartbeat");
    assert.equal(res.body.caCertificate.trim(), server.caPem.trim());
    assert.equal(typeof res.body.heartbeatIntervalSeconds, "number");
    const cert = forge.pki.certificateFromPem(res.body.certificate);
    assert.equal(cert.subject.getField("CN").value, res.body.clusterId);

    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), {
      client: { cert: res.body.certificate, key },
    });
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
    assert.equal(hb.body.status, "Ready");
    assert.deepEqual(hb.body.directives, []);

    // The sweeper records Pending -> Ready with its reason; the list API computes Ready.
    let detail;
    for (let i = 0; i < 40; i++) {
      detail = await server.api("GET", `/api/v1/clusters/${res.body.clusterId}`);
      // The phase is read a moment before the events: wait for both to show the transition.
      if (detail.body.phase === "Active" && detail.body.events?.some((e: { to: string }) => e.to === "Ready")) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(detail!.body.status, "Ready");
    assert.equal(detail!.body.phase, "Active");
    assert.equal(detail!.body.nodePools[0].name, "system");
    const readyEvent = detail!.body.events.find((e: { to: string }) => e.to === "Ready");
    assert.equal(readyEvent.reason, "first heartbeat");
    const list = await server.api("GET", `/api/v1/clusters?q=happy-1`);
    assert.equal(list.body.items[0].status, "Ready");

    const tokens = await server.api("GET", "/api/v1/registration-tokens");
    const listed = tokens.body.items.find((x: { id: string }) => x.id === t.id);
    assert.equal(listed.usedClusters, 1);
    assert.equal(listed.status, "exhausted");
    assert.equal(listed.token, undefined, "the token is shown once only");
  });

  test("no kubernetesVersion (the API server's /version failed): registered as unknown; a missing one later keeps the last known", async () => {
    const c = await registerCluster(server, "no-version-1", { body: { kubernetesVersion: undefined } });
    const detail = async () => (await server.api("GET", `/api/v1/clusters/${c.clusterId}`)).body;
    assert.equal((await detail()).kubernetesVersion, null, "unknown, not made up");
    const beat = async (over: Record<string, unknown>) => {
      const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(over), { client: c.client });
      assert.equal(hb.status, 200, JSON.stringify(hb.body));
    };
    // Heartbeat facts are written in batches: a distinct pod count says this one was written.
    const written = async (pods: number) => {
      for (let i = 0; i < 80 && (await detail()).workloads?.pods !== pods; i++) await new Promise((r) => setTimeout(r, 250));
      return detail();
    };
    await beat({ kubernetesVersion: undefined, workloads: { pods: 11, namespaces: 3 } });
    assert.equal((await written(11)).kubernetesVersion, null);
    await beat({ kubernetesVersion: "v1.31.4", workloads: { pods: 12, namespaces: 3 } });
    assert.equal((await written(12)).kubernetesVersion, "1.31.4");
    await beat({ kubernetesVersion: undefined, workloads: { pods: 13, namespaces: 3 } });
    assert.equal((await written(13)).kubernetesVersion, "1.31.4", "an unread version is not a change");
  });

  test("token errors: missing, invalid, unknown, revoked, expired, exhausted (a failure consumes nothing)", async () => {
    const r = registration("tok-errors");
    const post = (auth?: string) =>
      server.agent("POST", "/api/agent/v1/register", r.body, { headers: auth ? { authorization: auth } : {} });
    assert.equal((await post()).body.error, "token_missing");
    assert.equal((await post("Bearer nonsense")).body.error, "token_invalid");
    const t = await mint({ maxClusters: 2 });
    const forged = t.token.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    const bad = await post(`Bearer ${forged}`);
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error, "token_invalid");

    const revoked = await mint();
    assert.equal((await server.api("DELETE", `/api/v1/registration-tokens/${revoked.id}`)).status, 200);
    assert.equal((await post(`Bearer ${revoked.token}`)).body.error, "token_revoked");

    const expired = await mint();
    const past = new Date(Date.now() - 1000);
    if (server.db.engine === "sqlite")
      await server.db.query(`UPDATE "RegistrationToken" SET "expiresAt" = ? WHERE id = ?`, [past.getTime(), expired.id]);
    else await server.db.query(`UPDATE "RegistrationToken" SET "expiresAt" = $1 WHERE id = $2`, [past, expired.id]);
    const exp = await post(`Bearer ${expired.token}`);
    assert.equal(exp.status, 401);
    assert.equal(exp.body.error, "token_expired");

    const single = await mint({ maxClusters: 1 });
    assert.equal((await register(single.token, "tok-once")).res.status, 201);
    const replay = await register(single.token, "tok-twice");
    assert.equal(replay.res.status, 401);
    assert.equal(replay.res.body.error, "token_exhausted");

    // Failed registrations consumed none of t's uses.
    const list = await server.api("GET", "/api/v1/registration-tokens");
    assert.equal(list.body.items.find((x: { id: string }) => x.id === t.id).usedClusters, 0);
  });

  test("50 concurrent registrations against 3 uses give exactly 3 successes", async () => {
    const t = await mint({ maxClusters: 3 });
    const bodies = Array.from({ length: 50 }, (_, i) => registration(`race-${i}`).body);
    // A 503 overloaded (the signing gate refuses while the event loop lags, as it may on a busy
    // machine) consumes nothing and is no answer to the race: ride it out as an agent would.
    const deadline = Date.now() + 60_000;
    const results = await Promise.all(bodies.map((b) => rideOut(() => registerWith(server, t.token, b), deadline)));
    const ok = results.filter((r) => r.status === 201);
    assert.equal(ok.length, 3, `statuses: ${results.map((r) => r.status).join(",")}`);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.body.error === "token_exhausted"));
    const list = await server.api("GET", "/api/v1/registration-tokens");
    assert.equal(list.body.items.find((x: { id: string }) => x.id === t.id).usedClusters, 3);
    const clusters = await server.api("GET", "/api/v1/clusters?q=race-&limit=100");
    assert.equal(clusters.body.total, 3);
  });

  test("schema errors name the fields; bad JSON and oversized bodies are refused before parsing", async () => {
    const t = await mint();
    const { res } = await register(t.token, "Not_A_DNS_Label", { apiServerUrl: "http://plain.example", caFingerprint: "md5:00" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "invalid_request");
    const fields = res.body.details.map((d: { field: string }) => d.field);
    assert.ok(fields.includes("name") && fields.includes("apiServerUrl") && fields.includes("caFingerprint"), fields.join(","));

    const garbled = await server.agent("POST", "/api/agent/v1/register", undefined, {
      rawBody: "{not json",
      headers: { authorization: `Bearer ${t.token}` },
    });
    assert.equal(garbled.status, 400);
    assert.equal(garbled.body.error, "invalid_request");

    const huge = await server.agent("POST", "/api/agent/v1/register", undefined, {
      rawBody: JSON.stringify({ pad: "x".repeat(70 * 1024) }),
      headers: { authorization: `Bearer ${t.token}` },
    });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.error, "payload_too_large");
    const list = await server.api("GET", "/api/v1/registration-tokens");
    assert.equal(list.body.items.find((x: { id: string }) => x.id === t.id).usedClusters, 0);
  });

  test("CSR abuse is invalid_csr: weak key, exponent 3, CA:TRUE, keyCertSign, serverAuth, SANs, bad signature, garbage", async () => {
    const t = await mint({ maxClusters: 20 });
    const cases: [string, Record<string, unknown>][] = [
      ["1024-bit key", { bits: 1024 }],
      ["exponent 3", { exponent: 3 }],
      ["CA:TRUE", { requestCa: true }],
      ["keyCertSign", { keyCertSign: true }],
      ["serverAuth", { serverAuth: true }],
      ["SANs", { sans: ["evil.example"] }],
      ["bad signature", { tamper: true }],
    ];
    for (const [what, opts] of cases) {
      const { res } = await register(t.token, `csr-${what.replace(/[^a-z0-9]/gi, "").toLowerCase()}`, {}, opts);
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, "invalid_csr", what);
    }
    const { res } = await register(t.token, "csr-garbage", {
      csr: "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----",
    });
    assert.equal(res.body.error, "invalid_csr");
    const list = await server.api("GET", "/api/v1/registration-tokens");
    assert.equal(list.body.items.find((x: { id: string }) => x.id === t.id).usedClusters, 0, "no CSR failure consumed a use");
  });

  test("label scope: outside the scope is 403 naming the label; fixed labels are stamped; required labels 422", async () => {
    const scoped = await mint({ maxClusters: 5, allowedLabels: { region: ["eu-west-1"], env: "*" } });
    const escalate = await register(scoped.token, "scope-1", { labels: { env: "prod", region: "us-east-1" } });
    assert.equal(escalate.res.status, 403);
    assert.equal(escalate.res.body.error, "label_not_allowed");
    assert.equal(escalate.res.body.details.label, "region");
    const extra = await register(scoped.token, "scope-2", { labels: { env: "prod", region: "eu-west-1", team: "x" } });
    assert.equal(extra.res.body.error, "label_not_allowed");
    assert.equal(extra.res.body.details.label, "team");

    const fixed = await mint({ maxClusters: 5, fixedLabels: { env: "prod" } });
    const stamped = await register(fixed.token, "fixed-1", { labels: { region: "eu-west-1" } });
    assert.equal(stamped.res.status, 201, JSON.stringify(stamped.res.body));
    const detail = await server.api("GET", `/api/v1/clusters/${stamped.res.body.clusterId}`);
    assert.deepEqual(detail.body.labels, { env: "prod", region: "eu-west-1" });
    const fight = await register(fixed.token, "fixed-2", { labels: { env: "dev", region: "eu-west-1" } });
    assert.equal(fight.res.body.error, "label_not_allowed");

    const missing = await register(fixed.token, "fixed-3", { labels: {} });
    assert.equal(missing.res.status, 422);
    assert.equal(missing.res.body.error, "missing_required_labels");
    assert.deepEqual(missing.res.body.details.missing, ["region"]);
  });

  test("re-registration with the kept key keeps the id, issues a new certificate and revokes the old; a new key is a conflict", async () => {
    const first = await registered("rereg-1");
    const t = await mint();
    // Same key (an agent retrying after a lost answer): accepted. Proof details: reregistration.test.ts.
    const again = await register(t.token, "rereg-1", { csr: csrForKey(first.client.key) });
    assert.equal(again.res.status, 201, JSON.stringify(again.res.body));
    assert.equal(again.res.body.clusterId, first.clusterId);
    const old = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: first.client });
    assert.equal(old.status, 403);
    assert.equal(old.body.error, "certificate_revoked");
    const fresh = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), {
      client: { cert: again.res.body.certificate, key: first.client.key },
    });
    assert.equal(fresh.status, 200);

    // The same name and CA fingerprint with another key is no proof at all.
    const t2 = await mint();
    const conflict = await register(t2.token, "rereg-1");
    assert.equal(conflict.res.status, 409);
    assert.equal(conflict.res.body.error, "cluster_conflict");
    const audit = await server.api("GET", `/api/v1/audit?action=cluster.reregister&target=${first.clusterId}`);
    assert.equal(audit.body.items.length, 1);
  });

  test("clusterUid: stored from registration and heartbeats; two active clusters with one UID are both flagged, never refused, until one is deregistered", async () => {
    const uid = "3F1C2A9E-5B7D-4C1E-8A2B-6D9E0F1A2B3C";
    const twinA = await registerCluster(server, "twin-a", { body: { clusterUid: uid } });
    // The same Kubernetes cluster registered again under another name: accepted (201), flagged.
    const twinB = await registerCluster(server, "twin-b", { body: { clusterUid: uid.toLowerCase() } });
    // A third reports nothing at registration, then the UID in a heartbeat (an agent that could not read it at first).
    const late = await registerCluster(server, "twin-c");
    const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ clusterUid: uid }), { client: late.client });
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
    const lower = uid.toLowerCase();
    assert.equal((await server.api("GET", `/api/v1/clusters/${twinA.clusterId}`)).body.clusterUid, lower, "stored lowercased");

    const flagged = async () => {
      const r = await server.api("GET", "/api/v1/clusters?duplicateUid=true&q=twin-");
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return Object.fromEntries(
        (r.body.items as { name: string; reasons: { code: string; clusters?: { name: string }[] }[] }[]).map((c) => [
          c.name,
          c.reasons.find((x) => x.code === "sameCluster")?.clusters?.map((o) => o.name),
        ]),
      );
    };
    // Heartbeat facts are written in batches: wait for twin-c's UID to land.
    const deadline = Date.now() + 10_000;
    let seen = await flagged();
    while (Object.keys(seen).length < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await flagged();
    }
    assert.deepEqual(seen, {
      "twin-a": ["twin-b", "twin-c"],
      "twin-b": ["twin-a", "twin-c"],
      "twin-c": ["twin-a", "twin-b"],
    });
    const rest = await server.api("GET", "/api/v1/clusters?duplicateUid=false&q=twin-");
    assert.deepEqual(rest.body.items, [], "the filter's complement holds none of them");
    const bad = await server.api("GET", "/api/v1/clusters?duplicateUid=maybe");
    assert.equal(bad.status, 400);

    // twin-b leaves the fleet (disconnect: phase Deregistration): it no longer flags the others.
    const act = (body: Record<string, unknown>) => server.api("POST", `/api/v1/clusters/${twinB.clusterId}/deregistration`, body);
    for (const body of [
      { action: "start" },
      { action: "confirm-workloads", force: true, reason: "a copy of twin-a" },
      { action: "disconnect" },
    ]) {
      const r = await act(body);
      assert.equal(r.status, 200, `${body.action}: ${JSON.stringify(r.body)}`);
    }
    assert.deepEqual(await flagged(), { "twin-a": ["twin-c"], "twin-c": ["twin-a"] });
  });

  test("every attempt is logged with its result code, source address and token id", async () => {
    const t = await mint();
    await register(t.token, "attempt-ok");
    await register(t.token, "attempt-exhausted");
    const res = await server.api("GET", `/api/v1/registration-attempts?tokenId=${t.id}`);
    assert.equal(res.status, 200);
    // A try deferred for load (ridden out above) is logged too, as "overloaded": not what this checks.
    const results = res.body.items
      .map((a: { result: string }) => a.result)
      .filter((r: string) => r !== "overloaded")
      .sort();
    assert.deepEqual(results, ["ok", "token_exhausted"]);
    assert.ok(res.body.items.every((a: { sourceAddress: string }) => a.sourceAddress === "127.0.0.1"));
  });

  test("names the databases cannot store (NUL, a lone surrogate, over-long) are refused with 400 and still logged, escaped", async () => {
    const t = await mint({ maxClusters: 5 });
    const names = ["nul\u0000name", "half\ud800pair", "🚀".repeat(100)];
    for (const name of names) {
      const { res } = await register(t.token, name);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error, "invalid_request");
    }
    const logged = await server.api("GET", `/api/v1/registration-attempts?tokenId=${t.id}&result=invalid_request`);
    assert.equal(logged.status, 200);
    const stored = logged.body.items.map((a: { clusterName: string }) => a.clusterName).sort();
    assert.deepEqual(stored, ["half\\ud800pair", "nul\\u0000name", "🚀".repeat(63)].sort());
    assert.ok(logged.body.items.every((a: { result: string }) => a.result === "invalid_request"));
  });
});

describe("mutual TLS identity", () => {
  test("heartbeat without a certificate, or with one from another CA, is 401 client_certificate_required", async () => {
    const none = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody());
    assert.equal(none.status, 401);
    assert.equal(none.body.error, "client_certificate_required");

    // A self-made CA and a client certificate from it, with a plausible CN.
    const caKeys = forge.pki.rsa.generateKeyPair(1024);
    const caCert = forge.pki.createCertificate();
    caCert.publicKey = caKeys.publicKey;
    caCert.serialNumber = "01";
    caCert.validity.notBefore = new Date(Date.now() - 60_000);
    caCert.validity.notAfter = new Date(Date.now() + 86_400_000);
    caCert.setSubject([{ name: "commonName", value: "Fleet Registry CA" }]);
    caCert.setIssuer(caCert.subject.attributes);
    caCert.setExtensions([{ name: "basicConstraints", cA: true }]);
    caCert.sign(caKeys.privateKey, forge.md.sha256.create());
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const leaf = forge.pki.createCertificate();
    leaf.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString());
    leaf.serialNumber = "02";
    leaf.validity.notBefore = caCert.validity.notBefore;
    leaf.validity.notAfter = caCert.validity.notAfter;
    const { clusterId } = await registered("foreign-target");
    leaf.setSubject([{ name: "commonName", value: clusterId }]);
    leaf.setIssuer(caCert.subject.attributes);
    leaf.sign(caKeys.privateKey, forge.md.sha256.create());
    const foreign = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), {
      client: { cert: forge.pki.certificateToPem(leaf), key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() },
    });
    assert.equal(foreign.status, 401);
    assert.equal(foreign.body.error, "client_certificate_required");
  });

  test("spoofed identity headers are ignored on both ports", async () => {
    const { clusterId, client } = await registered("spoof-target");
    const cert = forge.pki.certificateFromPem(client.cert);
    const fp = `sha256:${forge.md.sha256
      .create()
      .update(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes())
      .digest()
      .toHex()}`;
    const spoof = {
      "x-fleet-client-fingerprint": fp,
      "x-fleet-client-serial": cert.serialNumber,
      "x-forwarded-client-cert": encodeURIComponent(client.cert),
    };
    const viaAgentPort = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { headers: spoof });
    assert.equal(viaAgentPort.status, 401, `agent port accepted a header identity for ${clusterId}`);
    // The console port does not serve the heartbeat at all (tests/system/edge-access.test.ts).
    const viaConsole = await server.api("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { cookie: null, headers: spoof });
    assert.equal(viaConsole.status, 421);
    assert.equal(viaConsole.body.error, "agent_port_required");
  });

  test("rotation: the old certificate works until the new one is first used, then is revoked", async () => {
    const { client } = await registered("rotate-1");
    const { csr, key } = makeCsr();
    const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const fresh = { cert: rotated.body.certificate, key };
    assert.equal(
      (await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client })).status,
      200,
      "old still valid",
    );
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: fresh })).status, 200);
    const old = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client });
    assert.equal(old.status, 403);
    assert.equal(old.body.error, "certificate_revoked");
    const abuse = await server.agent(
      "POST",
      "/api/agent/v1/rotate",
      { csr: makeCsr({ requestCa: true }).csr },
      { client: fresh },
    );
    assert.equal(abuse.body.error, "invalid_csr");
  });

  test("a new cluster's first heartbeat marks its certificate used; a rotation before it still retires the first one", async () => {
    // The registration caches the new certificate (agent-identity.ts rememberNewCertificate), so
    // its first use takes the short path: the mark must still reach the database.
    const firstUsed = async (clusterId: string) =>
      (
        await server.db.query<{ serial: string; firstUsedAt: unknown }>(
          server.db.engine === "sqlite"
            ? `SELECT "serial", "firstUsedAt" FROM "Certificate" WHERE "clusterId" = ? ORDER BY "createdAt"`
            : `SELECT "serial", "firstUsedAt" FROM "Certificate" WHERE "clusterId" = $1 ORDER BY "createdAt"`,
          [clusterId],
        )
      ).map((c) => c.firstUsedAt !== null);
    const { clusterId, client } = await registered("first-use-1");
    assert.deepEqual(await firstUsed(clusterId), [false]);
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client })).status, 200);
    assert.deepEqual(await firstUsed(clusterId), [true]);

    const other = await registered("first-use-2");
    const { csr, key } = makeCsr();
    const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: other.client });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const fresh = { cert: rotated.body.certificate, key };
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: other.client })).status, 200);
    assert.equal((await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: fresh })).status, 200);
    const old = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: other.client });
    assert.equal(old.body.error, "certificate_revoked");
    assert.deepEqual(await firstUsed(other.clusterId), [true, true]);
  });

  test("heartbeat body errors are 400 with fields, oversized 413", async () => {
    const { client } = await registered("hb-errors");
    const bad = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody({ health: { apiServer: "meh" } }), {
      client,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "invalid_request");
    assert.ok(bad.body.details.some((d: { field: string }) => d.field.startsWith("health")));
    const huge = await server.agent("POST", "/api/agent/v1/heartbeat", undefined, {
      client,
      rawBody: JSON.stringify({ pad: "y".repeat(65 * 1024) }),
    });
    assert.equal(huge.status, 413);
  });
});

const becameReady = (clusterId: string) =>
  new RegExp(`event: cluster\\.status\\ndata: [^\\n]*"clusterId":"${clusterId}"[^\\n]*"to":"Ready"`);

describe("status and events", () => {
  test("a live event stream carries registrations and status transitions", async () => {
    const cookie = await server.adminCookie();
    const controller = new AbortController();
    const res = await fetch(`${server.consoleUrl}/api/v1/events`, { headers: { cookie }, signal: controller.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
    const reader = res.body!.getReader();
    let text = "";
    const registeredP = registered("sse-1");
    const deadline = Date.now() + 10_000;
    let clusterId: string | undefined;
    while (Date.now() < deadline) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
      if (!clusterId) {
        const r = await registeredP;
        clusterId = r.clusterId;
        await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: r.client });
      }
      // Its own transition: other clusters of this file may change status meanwhile.
      if (becameReady(clusterId).test(text) && text.includes("fleet.summary")) break;
    }
    controller.abort();
    assert.match(text, /event: cluster\.registered/);
    assert.match(text, becameReady(clusterId!));
    assert.match(text, /event: fleet\.summary/);
  });

  test("every heartbeat is counted in its minute, however the batched writes fall", async () => {
    const a = await registered("counted-1");
    const b = await registered("counted-2");
    // a heartbeats every 700 ms, b once: b's count must survive flushes that only carry a's facts.
    let sent = 0;
    await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: b.client });
    for (; sent < 10; sent++) {
      const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeatBody(), { client: a.client });
      assert.equal(hb.status, 200, JSON.stringify(hb.body));
      await new Promise((r) => setTimeout(r, 700));
    }
    const total = async (clusterId: string) => {
      const res = await server.api("GET", `/api/v1/clusters/${clusterId}/heartbeats?minutes=5`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.reduce((n: number, i: { count: number }) => n + i.count, 0);
    };
    // Counts are written every 5 s.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && ((await total(a.clusterId)) < sent || (await total(b.clusterId)) < 1))
      await new Promise((r) => setTimeout(r, 250));
    assert.equal(await total(a.clusterId), sent);
    assert.equal(await total(b.clusterId), 1);
  });

  test("secrets never reach the logs", async () => {
    const t = await mint();
    const { res } = await register(t.token, "log-check");
    assert.equal(res.status, 201);
    // The server logs before it answers, but its output reaches this process through a pipe read
    // asynchronously: on a busy machine the answer can arrive first. Wait for the line (2 s at most).
    for (const deadline = Date.now() + 2000; !server.logs().includes(t.id) && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    const logs = server.logs();
    const secret = t.token.split("_").slice(2).join("_");
    assert.ok(!logs.includes(secret), "token secret in logs");
    assert.ok(!logs.includes("PRIVATE KEY"), "key material in logs");
    assert.ok(logs.includes(t.id), "the token's public id is what logs name");
  });
});
