import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createPrivateKey, generateKeyPairSync, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import forge from "node-forge";
import type { Db } from "@/lib/server/db/client";
import { dbSecretStore, loadOrCreateFleetCa, type FleetCa, type SecretStore } from "@/lib/server/pki/fleet-ca";
import { issueClientCertificate } from "@/lib/server/pki/client-certificate";
import { issueServerCertificate } from "@/lib/server/pki/server-certificate";
import { CsrError, validateCsr } from "@/lib/server/pki/csr";
import { certificateFingerprint, certificateSerial, verifyIssuedBy } from "@/lib/server/pki/x509";

const DAY = 24 * 60 * 60 * 1000;
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

// ---------------------------------------------------------------------------------------------
// Helpers

const workDir = mkdtempSync(path.join(tmpdir(), "fleet-pki-test-"));
after(() => rmSync(workDir, { recursive: true, force: true }));
let fileCounter = 0;

function tempFile(contents: string): string {
  const file = path.join(workDir, `f${fileCounter++}.pem`);
  writeFileSync(file, contents);
  return file;
}

function openssl(args: string[]): { status: number | null; output: string } {
  const r = spawnSync("openssl", args, { encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

function opensslText(certPem: string): string {
  return execFileSync("openssl", ["x509", "-noout", "-text", "-in", tempFile(certPem)], { encoding: "utf8" });
}

/** A Map-backed store whose calls yield to the event loop, so concurrent callers interleave. */
function memoryStore(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  const creates: { name: string; created: boolean }[] = [];
  const store: SecretStore = {
    async get(name) {
      await new Promise((resolve) => setImmediate(resolve));
      return data.get(name) ?? null;
    },
    async create(name, value) {
      await new Promise((resolve) => setImmediate(resolve));
      const created = !data.has(name);
      if (created) data.set(name, value);
      creates.push({ name, created });
      return created;
    },
  };
  return { store, data, creates };
}

type Keys = { privateKeyPem: string; publicKeyPem: string };

function rsaKeys(bits = 2048, publicExponent = 65537): Keys {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: bits, publicExponent });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

function makeCsr(keys: Keys, options: { cn?: string; extensions?: object[]; md?: forge.md.MessageDigest } = {}): string {
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  csr.setSubject([{ name: "commonName", value: options.cn ?? "agent" }]);
  if (options.extensions) csr.setAttributes([{ name: "extensionRequest", extensions: options.extensions }]);
  csr.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem) as forge.pki.rsa.PrivateKey, options.md ?? forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}

function pemToDer(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""), "base64");
}

function derToPem(der: Buffer, label: string): string {
  return `-----BEGIN ${label}-----\n${der.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END ${label}-----\n`;
}

// One CA for most tests: RSA-3072 generation is the slow part of this file.
const caStore = memoryStore();
const ca = await loadOrCreateFleetCa(caStore.store);
// FLEET_CA_ALGORITHM=ecdsa-p256's CA.
const ecStore = memoryStore();
const ecCa = await loadOrCreateFleetCa(ecStore.store, { algorithm: "ecdsa-p256" });
const agentKeys = rsaKeys();
const agentCsr = makeCsr(agentKeys, { cn: "admin" });

function issue(clusterId = "cl_test0000000000001", extra: { validityDays?: number; now?: Date; by?: FleetCa } = {}) {
  const { publicKeyPem } = validateCsr(agentCsr);
  return issueClientCertificate(extra.by ?? ca, {
    publicKeyPem,
    clusterId,
    validityDays: extra.validityDays ?? 90,
    now: extra.now,
  });
}

// ---------------------------------------------------------------------------------------------
// The CA

test("the CA is created once and reloaded identically", async () => {
  assert.match(ca.fingerprint, /^sha256:[0-9a-f]{64}$/);
  const bundle = JSON.parse(caStore.data.get("fleet-ca.key")!) as { keyPem: string; certPem: string };
  assert.equal(bundle.certPem, ca.certPem);
  assert.equal(bundle.keyPem, ca.keyPem);
  assert.equal(caStore.data.get("fleet-ca.cert"), ca.certPem);

  const again = await loadOrCreateFleetCa(caStore.store);
  assert.deepEqual(again, ca);
  assert.equal(caStore.creates.filter((c) => c.name === "fleet-ca.key").length, 1, "a restart must not try to create a CA");
});

test("the CA certificate is a self-signed, pathlen-0, 10-year RSA-3072 CA", () => {
  const x509 = new X509Certificate(ca.certPem);
  assert.equal(x509.ca, true);
  assert.ok(x509.checkIssued(x509) && x509.verify(x509.publicKey), "self-signed");
  assert.equal(x509.publicKey.asymmetricKeyDetails?.modulusLength, 3072);
  assert.match(x509.subject, /^O=Fleet Registry\nOU=install-[0-9a-f]{8}\nCN=Fleet Registry CA$/);
  assert.equal(ca.subject, x509.subject.split("\n").join(", "));
  assert.equal(ca.notAfter.getTime(), new Date(x509.validTo).getTime());
  const years = (ca.notAfter.getTime() - Date.now()) / (365.25 * DAY);
  assert.ok(years > 9.9 && years < 10.1, `validity ${years} years`);
  assert.ok(BigInt(`0x${x509.serialNumber}`) >= 2n ** 64n, "serial has at least 64 bits");

  const text = opensslText(ca.certPem);
  assert.match(text, /X509v3 Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
  assert.match(text, /X509v3 Key Usage: critical\s+Certificate Sign, CRL Sign\n/);
  assert.match(text, /X509v3 Subject Key Identifier/);
  // The CA must be acceptable to OpenSSL's strict checks as a trust anchor.
  const verified = openssl(["verify", "-x509_strict", "-CAfile", tempFile(ca.certPem), tempFile(ca.certPem)]);
  assert.equal(verified.status, 0, verified.output);
});

test("an ECDSA P-256 CA signs with ecdsa-with-SHA256 and keeps its key when the setting changes", async () => {
  const x509 = new X509Certificate(ecCa.certPem);
  assert.equal(x509.publicKey.asymmetricKeyType, "ec");
  assert.equal(x509.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
  assert.ok(x509.ca && x509.checkIssued(x509) && x509.verify(x509.publicKey), "a self-signed CA");
  const text = opensslText(ecCa.certPem);
  assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
  assert.match(text, /X509v3 Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
  assert.match(text, /X509v3 Key Usage: critical\s+Certificate Sign, CRL Sign/);
  assert.match(text, /X509v3 Subject Key Identifier/);
  // The stored CA is the CA: a restart with another FLEET_CA_ALGORITHM does not replace it.
  assert.deepEqual(await loadOrCreateFleetCa(ecStore.store, { algorithm: "rsa-3072" }), ecCa);

  // What it issues verifies strictly: OpenSSL also refuses a certificate whose two signature
  // algorithm fields differ (forge writes ECDSA's with a NULL parameter unless replaced).
  const client = issue("cl_ecdsa00000000001", { by: ecCa });
  const ok = openssl([
    "verify",
    "-x509_strict",
    "-purpose",
    "sslclient",
    "-CAfile",
    tempFile(ecCa.certPem),
    tempFile(client.pem),
  ]);
  assert.equal(ok.status, 0, ok.output);
  assert.match(opensslText(client.pem), /Signature Algorithm: ecdsa-with-SHA256/);
  assert.equal(verifyIssuedBy(client.pem, ecCa), true);
  assert.equal(verifyIssuedBy(client.pem, ca), false);
  const caSki = /X509v3 Subject Key Identifier:\s+([0-9A-F:]+)/.exec(text)?.[1];
  assert.ok(caSki);
  assert.match(opensslText(client.pem), new RegExp(`X509v3 Authority Key Identifier:\\s+(keyid:)?${caSki}`));
  assert.equal(new X509Certificate(client.pem).issuer, x509.subject);
});

test("two installs get different CAs", async () => {
  const other = await loadOrCreateFleetCa(memoryStore().store);
  assert.notEqual(other.fingerprint, ca.fingerprint);
  assert.notEqual(other.subject, ca.subject);
});

test("concurrent first starts sharing a store end up with one CA", async () => {
  const shared = memoryStore();
  const results = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateFleetCa(shared.store)));
  const bundleCreates = shared.creates.filter((c) => c.name === "fleet-ca.key");
  assert.equal(bundleCreates.length, 4, "every racer generated a CA and tried to store it");
  assert.equal(bundleCreates.filter((c) => c.created).length, 1);
  for (const r of results) assert.deepEqual(r, results[0]);
  const stored = JSON.parse(shared.data.get("fleet-ca.key")!) as { certPem: string };
  assert.equal(stored.certPem, results[0]!.certPem);
});

test("an unreadable stored CA fails loudly instead of being replaced", async () => {
  const broken = memoryStore({ "fleet-ca.key": "not json" });
  await assert.rejects(loadOrCreateFleetCa(broken.store), /fleet-ca\.key.*unreadable/);
  assert.equal(broken.data.get("fleet-ca.key"), "not json");

  const mismatched = memoryStore({
    "fleet-ca.key": JSON.stringify({ version: 1, keyPem: rsaKeys().privateKeyPem, certPem: ca.certPem }),
  });
  await assert.rejects(loadOrCreateFleetCa(mismatched.store), /key does not match/);
});

test("the public certificate copy is restored when missing", async () => {
  const store = memoryStore({ "fleet-ca.key": caStore.data.get("fleet-ca.key")! });
  const loaded = await loadOrCreateFleetCa(store.store);
  assert.equal(loaded.fingerprint, ca.fingerprint);
  assert.equal(store.data.get("fleet-ca.cert"), ca.certPem);
});

test("dbSecretStore reads with value un-omitted and maps P2002 to false", async () => {
  const rows = new Map<string, string>();
  const calls: unknown[] = [];
  const fakeDb = {
    secret: {
      async findUnique(args: { where: { name: string }; omit?: { value?: boolean } }) {
        calls.push(args);
        const value = rows.get(args.where.name);
        if (value === undefined) return null;
        return args.omit?.value === false ? { name: args.where.name, value } : { name: args.where.name };
      },
      async create(args: { data: { name: string; value: string } }) {
        if (args.data.name === "boom") throw Object.assign(new Error("connection lost"), { code: "P1001" });
        if (rows.has(args.data.name)) throw Object.assign(new Error("Unique constraint failed"), { code: "P2002" });
        rows.set(args.data.name, args.data.value);
        return { name: args.data.name };
      },
    },
  };
  const store = dbSecretStore(fakeDb as unknown as Db);
  assert.equal(await store.get("x"), null);
  assert.equal(await store.create("x", "v1"), true);
  assert.equal(await store.create("x", "v2"), false);
  assert.equal(await store.get("x"), "v1");
  assert.deepEqual(calls[1], { where: { name: "x" }, omit: { value: false } });
  await assert.rejects(store.create("boom", "v"), /connection lost/);
});

// ---------------------------------------------------------------------------------------------
// Client certificates

test("an issued client certificate verifies with openssl and with Node", () => {
  const cert = issue();
  const ok = openssl(["verify", "-x509_strict", "-purpose", "sslclient", "-CAfile", tempFile(ca.certPem), tempFile(cert.pem)]);
  assert.equal(ok.status, 0, ok.output);
  assert.match(ok.output, /: OK/);

  const x509 = new X509Certificate(cert.pem);
  const caX509 = new X509Certificate(ca.certPem);
  assert.ok(x509.checkIssued(caX509));
  assert.ok(x509.verify(caX509.publicKey));
  assert.equal(x509.issuer, caX509.subject);
  assert.equal(verifyIssuedBy(cert.pem, ca), true);

  // And the check can fail: openssl rejects it against a foreign CA.
  const foreign = openssl(["verify", "-CAfile", tempFile(makeSelfSignedCaPem()), tempFile(cert.pem)]);
  assert.notEqual(foreign.status, 0);
});

function makeSelfSignedCaPem(): string {
  const keyFile = path.join(workDir, `k${fileCounter++}.pem`);
  return execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-subj", "/CN=Fleet Registry CA", "-days", "1"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
}

test("the subject is CN=<clusterId> whatever the CSR asked, with no SANs", () => {
  const parsed = validateCsr(agentCsr);
  assert.equal(parsed.requestedCommonName, "admin");
  const cert = issue("cl_abcdefghijklmnop");
  const x509 = new X509Certificate(cert.pem);
  assert.equal(x509.subject, "CN=cl_abcdefghijklmnop");
  assert.equal(x509.subjectAltName, undefined);
  assert.doesNotMatch(opensslText(cert.pem), /Subject Alternative Name/);
  // UTF8String, not PrintableString: "_" is not a PrintableString character and strict
  // parsers (Go's crypto/x509) reject the certificate otherwise.
  const asn1 = execFileSync("openssl", ["asn1parse", "-in", tempFile(cert.pem)], { encoding: "utf8" });
  assert.match(asn1, /UTF8STRING\s*:cl_abcdefghijklmnop/);
  assert.doesNotMatch(asn1, /PRINTABLESTRING/);
  // The certified key is the CSR's key.
  assert.equal(x509.publicKey.export({ type: "spki", format: "pem" }).toString(), agentKeys.publicKeyPem);
});

test("extensions: CA:FALSE critical, signing usages critical, clientAuth only, key identifiers", () => {
  const cert = issue();
  const x509 = new X509Certificate(cert.pem);
  assert.equal(x509.ca, false);
  assert.deepEqual(x509.keyUsage, [CLIENT_AUTH]); // Node reports the extended key usages here
  const text = opensslText(cert.pem);
  assert.match(text, /X509v3 Basic Constraints: critical\s+CA:FALSE/);
  assert.match(text, /X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
  assert.match(text, /X509v3 Extended Key Usage:\s+TLS Web Client Authentication\n/);
  assert.match(text, /X509v3 Subject Key Identifier/);
  const caSki = /X509v3 Subject Key Identifier:\s+([0-9A-F:]+)/.exec(opensslText(ca.certPem))?.[1];
  assert.ok(caSki);
  assert.match(text, new RegExp(`X509v3 Authority Key Identifier:\\s+(keyid:)?${caSki}`));
});

test("serials are random, positive, at least 64 bits, and match certificateSerial", () => {
  const a = issue();
  const b = issue();
  assert.notEqual(a.serial, b.serial);
  for (const cert of [a, b]) {
    assert.match(cert.serial, /^[4-7][0-9a-f]{31}$/);
    assert.ok(BigInt(`0x${cert.serial}`) >= 2n ** 64n);
    assert.equal(certificateSerial(cert.pem), cert.serial);
    const printed = execFileSync("openssl", ["x509", "-noout", "-serial", "-in", tempFile(cert.pem)], { encoding: "utf8" });
    assert.equal(printed.trim(), `serial=${cert.serial.toUpperCase()}`);
  }
});

test("notBefore is backdated 5 minutes and notAfter is now + validityDays", () => {
  const now = new Date("2027-03-01T12:00:00.750Z");
  const cert = issue("cl_validity", { now, validityDays: 30 });
  assert.equal(cert.notBefore.toISOString(), "2027-03-01T11:55:00.000Z");
  assert.equal(cert.notAfter.toISOString(), "2027-03-31T12:00:00.000Z");
  const x509 = new X509Certificate(cert.pem);
  assert.equal(new Date(x509.validFrom).getTime(), cert.notBefore.getTime());
  assert.equal(new Date(x509.validTo).getTime(), cert.notAfter.getTime());
});

test("notAfter never passes the CA's notAfter", () => {
  const now = new Date(ca.notAfter.getTime() - 10 * DAY);
  const cert = issue("cl_clamped", { now, validityDays: 365 });
  assert.equal(cert.notAfter.getTime(), ca.notAfter.getTime());
  assert.equal(new X509Certificate(cert.pem).validTo, new X509Certificate(ca.certPem).validTo);
  assert.throws(() => issue("cl_late", { now: new Date(ca.notAfter.getTime() + 1000) }), /expired/);
});

test("issuing rejects a CN that cannot be one and a non-positive validity", () => {
  assert.throws(() => issue("x".repeat(65)), /1-64 characters/);
  assert.throws(() => issue(""), /1-64 characters/);
  assert.throws(() => issue("cl_ok", { validityDays: 0 }), /positive/);
});

test("fingerprints agree between PEM, DER, the issuer and Node", () => {
  const cert = issue();
  const der = pemToDer(cert.pem);
  assert.equal(certificateFingerprint(cert.pem), cert.fingerprint);
  assert.equal(certificateFingerprint(der), cert.fingerprint);
  const nodeFp = new X509Certificate(cert.pem).fingerprint256.replace(/:/g, "").toLowerCase();
  assert.equal(cert.fingerprint, `sha256:${nodeFp}`);
  assert.throws(() => certificateFingerprint("not a certificate"));
});

test("verifyIssuedBy is false for another CA, outside the validity window, and for garbage", async () => {
  const cert = issue();
  const other = await loadOrCreateFleetCa(memoryStore().store);
  assert.equal(verifyIssuedBy(cert.pem, other), false);
  assert.equal(verifyIssuedBy(cert.pem, ca, new Date(cert.notAfter.getTime() + 1000)), false);
  assert.equal(verifyIssuedBy(cert.pem, ca, new Date(cert.notBefore.getTime() - 1000)), false);
  assert.equal(verifyIssuedBy(cert.pem, ca, cert.notBefore), true);
  assert.equal(verifyIssuedBy("garbage", ca), false);
  // A certificate for the same name signed by another CA is not ours.
  const forged = issueClientCertificate(other, {
    publicKeyPem: agentKeys.publicKeyPem,
    clusterId: "cl_test0000000000001",
    validityDays: 1,
  });
  assert.equal(verifyIssuedBy(forged.pem, ca), false);
});

// ---------------------------------------------------------------------------------------------
// CSR validation

test("a well-formed CSR with client-certificate extensions is accepted", () => {
  const keys = rsaKeys(3072);
  const csr = makeCsr(keys, {
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", clientAuth: true },
    ],
    md: forge.md.sha512.create(),
  });
  const parsed = validateCsr(csr);
  assert.equal(parsed.publicKeyPem, keys.publicKeyPem);
  assert.equal(parsed.requestedCommonName, "agent");
});

test("a CSR made by the openssl CLI is accepted", () => {
  const keyFile = path.join(workDir, `k${fileCounter++}.pem`);
  const csr = execFileSync(
    "openssl",
    ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-subj", "/CN=prod-eu-1/O=ignored"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  const parsed = validateCsr(csr);
  assert.equal(parsed.requestedCommonName, "prod-eu-1");
  const utf8 = execFileSync("openssl", ["req", "-new", "-utf8", "-key", keyFile, "-subj", "/CN=cluster-é"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  assert.equal(validateCsr(utf8).requestedCommonName, "cluster-é");
  assert.match(parsed.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
});

function ecCsr(): string {
  return execFileSync(
    "openssl",
    [
      "req",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "/dev/null",
      "-subj",
      "/CN=ec-agent",
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
}

function tamperSignature(pem: string): string {
  const der = pemToDer(pem);
  der[der.length - 1] = der[der.length - 1]! ^ 0x01;
  return derToPem(der, "CERTIFICATE REQUEST");
}

function tamperSubject(pem: string): string {
  const der = pemToDer(pem);
  const at = der.indexOf(Buffer.from("agent-a"));
  assert.ok(at > 0);
  der[at + 6] = "b".charCodeAt(0);
  return derToPem(der, "CERTIFICATE REQUEST");
}

const abuses: [name: string, csr: () => string, message: RegExp][] = [
  ["a 1024-bit key", () => makeCsr(rsaKeys(1024)), /1024 bits, but at least 2048/],
  ["public exponent 3", () => makeCsr(rsaKeys(2048, 3)), /exponent must be 65537/],
  ["basicConstraints CA:TRUE", () => makeCsr(agentKeys, { extensions: [{ name: "basicConstraints", cA: true }] }), /CA:TRUE/],
  [
    "keyCertSign",
    () => makeCsr(agentKeys, { extensions: [{ name: "keyUsage", digitalSignature: true, keyCertSign: true }] }),
    /keyCertSign/,
  ],
  ["cRLSign", () => makeCsr(agentKeys, { extensions: [{ name: "keyUsage", cRLSign: true }] }), /cRLSign/],
  ["serverAuth EKU", () => makeCsr(agentKeys, { extensions: [{ name: "extKeyUsage", serverAuth: true }] }), /serverAuth/],
  [
    "clientAuth plus codeSigning EKU",
    () => makeCsr(agentKeys, { extensions: [{ name: "extKeyUsage", clientAuth: true, codeSigning: true }] }),
    /codeSigning/,
  ],
  [
    "subjectAltNames",
    () => makeCsr(agentKeys, { extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "api.example.com" }] }] }),
    /subject alternative names/,
  ],
  ["a tampered signature", () => tamperSignature(agentCsr), /signature does not match/],
  ["a tampered subject", () => tamperSubject(makeCsr(agentKeys, { cn: "agent-a" })), /signature does not match/],
  ["a SHA-1 signature", () => makeCsr(agentKeys, { md: forge.md.sha1.create() }), /SHA-256/],
  ["garbage text", () => "hello, I am a CSR", /PEM block/],
  ["garbage inside PEM armour", () => derToPem(Buffer.from("definitely not DER"), "CERTIFICATE REQUEST"), /not a valid PKCS#10/],
  ["a certificate instead of a CSR", () => ca.certPem, /PEM block/],
  ["two CSRs in one string", () => agentCsr + agentCsr, /single PEM block|not a valid PKCS#10/],
  ["an EC key (openssl)", ecCsr, /ec key, but an RSA key/],
  ["an oversized PEM", () => agentCsr + " ".repeat(16 * 1024), /larger than 16 KiB/],
];

for (const [name, makeAbuse, message] of abuses) {
  test(`CSR abuse is rejected: ${name}`, () => {
    const pem = makeAbuse();
    assert.throws(
      () => validateCsr(pem),
      (err: unknown) => {
        assert.ok(err instanceof CsrError, `expected CsrError, got ${String(err)}`);
        assert.match(err.message, message);
        return true;
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Server certificate and real mutual TLS

test("the server certificate covers its names and IPs for serverAuth only", () => {
  const server = issueServerCertificate(ca, ["localhost", "127.0.0.1", "::1", "Agents.Example.com"]);
  const x509 = new X509Certificate(server.certPem);
  assert.equal(x509.ca, false);
  assert.deepEqual(x509.keyUsage, [SERVER_AUTH]);
  assert.equal(x509.subjectAltName, "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:agents.example.com");
  assert.equal(x509.checkHost("agents.example.com"), "agents.example.com");
  assert.equal(x509.checkIP("127.0.0.1"), "127.0.0.1");
  assert.equal(x509.checkHost("evil.example.com"), undefined);
  assert.ok(x509.checkPrivateKey(createPrivateKey(server.keyPem)));
  // ECDSA P-256 (cheaper handshakes), signed by the RSA CA.
  assert.equal(x509.publicKey.asymmetricKeyType, "ec");
  assert.equal(x509.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
  assert.ok(x509.verify(new X509Certificate(ca.certPem).publicKey));
  const text = openssl(["x509", "-noout", "-text", "-in", tempFile(server.certPem)]).output;
  assert.match(text, /Digital Signature\n/);
  assert.doesNotMatch(text, /Key Encipherment/);
  const days = (new Date(x509.validTo).getTime() - Date.now()) / DAY;
  assert.ok(days > 364 && days <= 365, `validity ${days} days`);
  const ok = openssl([
    "verify",
    "-x509_strict",
    "-purpose",
    "sslserver",
    "-CAfile",
    tempFile(ca.certPem),
    tempFile(server.certPem),
  ]);
  assert.equal(ok.status, 0, ok.output);
  assert.throws(() => issueServerCertificate(ca, []), /at least one/);
  assert.throws(() => issueServerCertificate(ca, ["bad name!"]), /neither an IP address nor a valid DNS name/);
});

type Seen = { authorized: boolean; cn: string | null; error: string | null };

/** One HTTPS request from a client presenting `identity` (or none); returns what the server saw. */
function requestAs(port: number, identity: { cert: string; key: string } | null, trust: FleetCa): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: "127.0.0.1", port, path: "/", agent: false, ca: [trust.certPem], ...(identity ?? {}) },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve(JSON.parse(body) as Seen));
      },
    );
    req.on("error", reject);
  });
}

for (const [algorithm, by] of [
  ["RSA-3072", () => ca],
  ["ECDSA P-256", () => ecCa],
] as const)
  test(`mutual TLS under an ${algorithm} CA: an issued client certificate is authorized, a foreign one is not`, async () => {
    await mutualTls(by());
  });

async function mutualTls(ca: FleetCa) {
  const serverCert = issueServerCertificate(ca, ["localhost", "127.0.0.1"]);
  const server = https.createServer(
    { cert: serverCert.certPem, key: serverCert.keyPem, requestCert: true, rejectUnauthorized: false, ca: [ca.certPem] },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      const seen: Seen = {
        authorized: socket.authorized,
        cn: typeof peer?.subject?.CN === "string" ? peer.subject.CN : null,
        error: socket.authorizationError ? String(socket.authorizationError) : null,
      };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(seen));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;

    const issued = issue("cl_tls0000000000001", { by: ca });
    const ours = await requestAs(port, { cert: issued.pem, key: agentKeys.privateKeyPem }, ca);
    assert.deepEqual(ours, { authorized: true, cn: "cl_tls0000000000001", error: null });

    const otherCa = await loadOrCreateFleetCa(memoryStore().store);
    const foreign = issueClientCertificate(otherCa, {
      publicKeyPem: agentKeys.publicKeyPem,
      clusterId: "cl_tls0000000000001",
      validityDays: 1,
    });
    const theirs = await requestAs(port, { cert: foreign.pem, key: agentKeys.privateKeyPem }, ca);
    assert.equal(theirs.authorized, false);
    assert.ok(theirs.error, "the server records why the foreign certificate was not authorized");

    const anonymous = await requestAs(port, null, ca);
    assert.equal(anonymous.authorized, false);
    assert.equal(anonymous.cn, null);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
