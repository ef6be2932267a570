import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import forge from "node-forge";
import { resolveClusterCaFingerprint, SIMULATED_CA_FILE } from "@/lib/agent/cluster-ca";
import { certificateFingerprint, generateRsaKeyPair, type KeyPair } from "@/lib/agent/csr";
import { FileStateStore, MemoryStateStore, StateError, writeFileAtomic, type AgentState } from "@/lib/agent/state";

const tmpDirs: string[] = [];
after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fleet-agent-state-"));
  tmpDirs.push(dir);
  return dir;
}

/** A self-signed certificate for `keys` (the store only checks that key and certificate match). */
function certFor(keys: KeyPair): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = "01";
  cert.validity.notBefore = new Date(Date.now() - 1000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: "commonName", value: "c_1" }]);
  cert.setIssuer([{ name: "commonName", value: "c_1" }]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

async function sampleState(): Promise<{ state: AgentState; keys: KeyPair }> {
  const keys = await generateRsaKeyPair();
  const certPem = certFor(keys);
  return {
    keys,
    state: {
      keyPem: keys.privateKeyPem,
      certPem,
      caPem: certPem,
      cluster: {
        clusterId: "c_1",
        name: "prod-eu-1",
        serverUrl: "https://127.0.0.1:8443",
        registeredAt: new Date().toISOString(),
        heartbeatIntervalSeconds: 30,
        heartbeatPath: "/api/agent/v1/heartbeat",
        clusterCaFingerprint: "sha256:" + "a".repeat(64),
        agentVersion: "1.4.0",
        kubernetesVersion: "1.30.2",
        appliedPolicyRevision: null,
      },
    },
  };
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe("agent state dir", () => {
  test("writes key.pem, cert.pem, ca.pem, cluster.json with 0600 in a 0700 dir, and reads them back", async () => {
    const dir = path.join(tmp(), "nested", "state");
    const store = new FileStateStore(dir);
    assert.equal(await store.load(), null, "nothing yet");
    const { state } = await sampleState();
    const previousUmask = process.umask(0o022);
    try {
      await store.save(state);
    } finally {
      process.umask(previousUmask);
    }
    assert.equal(mode(dir), 0o700);
    for (const f of ["key.pem", "cert.pem", "ca.pem", "cluster.json"]) assert.equal(mode(path.join(dir, f)), 0o600, f);
    assert.deepEqual(fs.readdirSync(dir).sort(), ["ca.pem", "cert.pem", "cluster.json", "key.pem"], "no temp files left");
    assert.deepEqual(await store.load(), state);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, "cluster.json"), "utf8")).clusterId, "c_1");
  });

  test("tightens a pre-existing, too-open directory", async () => {
    const dir = tmp();
    fs.chmodSync(dir, 0o755);
    const { state } = await sampleState();
    await new FileStateStore(dir).save(state);
    assert.equal(mode(dir), 0o700);
  });

  test("atomic writes replace a file whole and keep 0600", async () => {
    const dir = tmp();
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "old", { mode: 0o644 });
    await writeFileAtomic(file, "new");
    assert.equal(fs.readFileSync(file, "utf8"), "new");
    assert.equal(mode(file), 0o600);
    assert.deepEqual(fs.readdirSync(dir), ["f"]);
  });

  test("saveIdentity switches key and certificate together", async () => {
    const dir = tmp();
    const store = new FileStateStore(dir);
    const { state } = await sampleState();
    await store.save(state);
    const next = await generateRsaKeyPair();
    const nextCert = certFor(next);
    await store.saveIdentity(next.privateKeyPem, nextCert);
    const loaded = (await store.load())!;
    assert.equal(loaded.keyPem, next.privateKeyPem);
    assert.equal(loaded.certPem, nextCert);
    assert.equal(mode(path.join(dir, "key.pem")), 0o600);
  });

  test("recovers a rotation interrupted after the key moved (finishes it)", async () => {
    const dir = tmp();
    const store = new FileStateStore(dir);
    const { state } = await sampleState();
    await store.save(state);
    const next = await generateRsaKeyPair();
    // Crash between the two renames: key.pem is new, cert.pem.next is waiting.
    fs.writeFileSync(path.join(dir, "key.pem"), next.privateKeyPem, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, "cert.pem.next"), certFor(next), { mode: 0o600 });
    const loaded = (await store.load())!;
    assert.equal(loaded.keyPem, next.privateKeyPem);
    assert.equal(store.recovered, true);
    assert.equal(fs.existsSync(path.join(dir, "cert.pem.next")), false);
  });

  test("discards a rotation interrupted before the key moved (old pair stays)", async () => {
    const dir = tmp();
    const store = new FileStateStore(dir);
    const { state } = await sampleState();
    await store.save(state);
    const next = await generateRsaKeyPair();
    fs.writeFileSync(path.join(dir, "key.pem.next"), next.privateKeyPem);
    fs.writeFileSync(path.join(dir, "cert.pem.next"), certFor(next));
    const loaded = (await store.load())!;
    assert.equal(loaded.keyPem, state.keyPem);
    assert.equal(store.recovered, true);
    assert.deepEqual(fs.readdirSync(dir).sort(), ["ca.pem", "cert.pem", "cluster.json", "key.pem"]);
  });

  test("a key that does not match the certificate, or a broken cluster.json, is a StateError", async () => {
    const dir = tmp();
    const store = new FileStateStore(dir);
    const { state } = await sampleState();
    await store.save(state);
    const stranger = await generateRsaKeyPair();
    fs.writeFileSync(path.join(dir, "key.pem"), stranger.privateKeyPem);
    await assert.rejects(store.load(), StateError);
    fs.writeFileSync(path.join(dir, "cluster.json"), "{not json");
    await assert.rejects(store.load(), /not valid JSON/);
    fs.rmSync(path.join(dir, "ca.pem"));
    fs.writeFileSync(path.join(dir, "cluster.json"), JSON.stringify(state.cluster));
    await assert.rejects(store.load(), /missing/);
  });

  test("destroy removes the whole directory", async () => {
    const dir = tmp();
    const store = new FileStateStore(dir);
    await store.save((await sampleState()).state);
    await store.destroy();
    assert.equal(fs.existsSync(dir), false);
  });

  test("memory store round-trips and forgets", async () => {
    const store = new MemoryStateStore();
    const { state } = await sampleState();
    await store.save(state);
    assert.deepEqual(await store.load(), state);
    await store.destroy();
    assert.equal(await store.load(), null);
  });

  test("cluster CA fingerprint: --cluster-ca-file, else in-cluster, else a simulated CA kept stable in the state dir", async () => {
    const dir = tmp();
    const stateDir = path.join(dir, "state");
    const missing = path.join(dir, "no-such-ca.crt");
    const first = await resolveClusterCaFingerprint({ stateDir, inClusterPath: missing });
    assert.match(first, /^sha256:[0-9a-f]{64}$/);
    assert.equal(mode(path.join(stateDir, SIMULATED_CA_FILE)), 0o600);
    assert.equal(await resolveClusterCaFingerprint({ stateDir, inClusterPath: missing }), first, "stable across runs");

    const inCluster = path.join(dir, "ca.crt");
    const other = fs.readFileSync(path.join(stateDir, SIMULATED_CA_FILE), "utf8");
    fs.rmSync(path.join(stateDir, SIMULATED_CA_FILE));
    fs.writeFileSync(inCluster, other);
    assert.equal(await resolveClusterCaFingerprint({ stateDir, inClusterPath: inCluster }), certificateFingerprint(other));
    assert.equal(fs.existsSync(path.join(stateDir, SIMULATED_CA_FILE)), false, "no simulated CA when in a cluster");

    const flagFile = path.join(dir, "flag.crt");
    const { state } = await sampleState();
    fs.writeFileSync(flagFile, state.caPem);
    assert.equal(
      await resolveClusterCaFingerprint({ file: flagFile, stateDir, inClusterPath: inCluster }),
      certificateFingerprint(state.caPem),
    );
    await assert.rejects(resolveClusterCaFingerprint({ file: missing, stateDir }), /--cluster-ca-file/);
  });
});
