// The fleet CA private key at rest: sealed with the key-encryption key in the
// Secret table, a clear key from an older install sealed on the first start with a KEK, a start
// without the right KEK refused in one sentence, the KEK rotated by `npm run kek:rotate`, and the
// SQLite files and data dir readable by the service's user only. Real server, TEST_ENGINE.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createPrivateKey, randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { kekId, unsealKey, type SealedKey } from "@/lib/server/pki/ca-key-seal";
import { certificateFingerprint } from "@/lib/server/pki/x509";
import { startFleetServer, TEST_KEK, type FleetServer } from "../helpers/fleet-server";

const KEK = Buffer.from(TEST_KEK, "base64");
const workDir = mkdtempSync(path.join(tmpdir(), "fleet-kek-"));
after(() => rmSync(workDir, { recursive: true, force: true }));

async function storedCa(server: FleetServer): Promise<Record<string, unknown>> {
  const param = server.db.engine === "sqlite" ? "?" : "$1";
  const rows = await server.db.query<{ value: string }>(`SELECT value FROM "Secret" WHERE name = ${param}`, ["fleet-ca.key"]);
  assert.equal(rows.length, 1);
  return JSON.parse(rows[0]!.value) as Record<string, unknown>;
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe("a fleet started with a KEK", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("the Secret row holds no private key in clear, and it opens with the KEK into the served CA's key", async () => {
    const stored = await storedCa(server);
    const raw = JSON.stringify(stored);
    assert.doesNotMatch(raw, /PRIVATE KEY/);
    assert.equal(stored.version, 2);
    const sealed = stored.sealedKey as SealedKey;
    assert.equal(sealed.alg, "A256GCM");
    assert.equal(sealed.kid, kekId(KEK));
    const keyPem = unsealKey(sealed, KEK);
    assert.match(keyPem, /BEGIN PRIVATE KEY/);
    const served = new X509Certificate(server.caPem);
    assert.ok(served.checkPrivateKey(createPrivateKey(keyPem)), "the sealed key is the served CA's key");
    assert.equal(certificateFingerprint(String(stored.certPem)), certificateFingerprint(server.caPem));
  });

  test("data dir 0700, generated auth secret 0600, and on SQLite the database and its -wal/-shm 0600", async () => {
    assert.equal(mode(server.dataDir), 0o700);
    assert.equal(mode(path.join(server.dataDir, "auth-secret")), 0o600);
    if (server.db.database.dialect !== "sqlite") return;
    const file = server.db.database.file;
    const files = [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f));
    assert.ok(files.length >= 2, `expected the database and its WAL files, found ${files.join(", ")}`);
    for (const f of files) assert.equal(mode(f), 0o600, f);
  });

  test("without the KEK, or with a wrong one, the server refuses to start with one sentence naming what to set", async () => {
    const none = await server.exitOf({ FLEET_CA_KEK: "" });
    assert.equal(none.code, 1, none.output);
    assert.match(none.output, /sealed but no key-encryption key is configured: set FLEET_CA_KEK_FILE \(or FLEET_CA_KEK\)/);
    assert.doesNotMatch(none.output, /\n\s+at /, "no stack trace");

    const wrong = await server.exitOf({ FLEET_CA_KEK: randomBytes(32).toString("hex") });
    assert.equal(wrong.code, 1, wrong.output);
    assert.match(wrong.output, /is not the key-encryption key that sealed the fleet CA/);
    assert.doesNotMatch(wrong.output, /\n\s+at /, "no stack trace");

    const malformed = await server.exitOf({ FLEET_CA_KEK: "too-short" });
    assert.equal(malformed.code, 1, malformed.output);
    assert.match(malformed.output, /FLEET_CA_KEK: must be 32 bytes/);

    await server.restart();
  });

  test("npm run kek:rotate re-seals with the new KEK; the fleet starts with it and keeps its CA", async () => {
    const before = certificateFingerprint(server.caPem);
    const newKek = randomBytes(32);
    const file = path.join(workDir, "new.kek");
    writeFileSync(file, newKek.toString("base64") + "\n", { mode: 0o600 });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "./runtime/register-hooks.mjs", "--import", "tsx", "scripts/kek-rotate.ts", "--new-kek-file", file],
      {
        env: {
          ...process.env,
          DATABASE_URL: server.db.url,
          FLEET_CA_KEK: TEST_KEK,
          FLEET_CA_KEK_FILE: "",
          DATA_DIR: server.dataDir,
        },
      },
    );
    assert.match(stdout, new RegExp(`Re-sealed with the new KEK \\(id ${kekId(newKek)}\\)`));
    assert.equal((await storedCa(server)).sealedKey && ((await storedCa(server)).sealedKey as SealedKey).kid, kekId(newKek));

    const old = await server.exitOf({});
    assert.equal(old.code, 1, "the old KEK no longer opens it");
    await server.restart({ FLEET_CA_KEK: "", FLEET_CA_KEK_FILE: file });
    const ca = await server.agent("GET", "/api/agent/v1/ca");
    assert.equal(certificateFingerprint(String(ca.body)), before);
  });
});

describe("an install whose CA key is stored in clear", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer({ FLEET_CA_KEK: "" });
  });
  after(async () => {
    await server?.stop();
  });

  test("starts with a loud warning, and the first start with a KEK seals it keeping the same CA", async () => {
    const clear = await storedCa(server);
    assert.equal(clear.version, 1);
    assert.match(String(clear.keyPem), /BEGIN PRIVATE KEY/);
    assert.match(server.logs(), /PRIVATE KEY IS STORED IN CLEAR.*Set FLEET_CA_KEK_FILE/);
    const fingerprint = certificateFingerprint(server.caPem);

    await server.restart({ FLEET_CA_KEK: TEST_KEK });
    const sealed = await storedCa(server);
    assert.equal(sealed.version, 2);
    assert.doesNotMatch(JSON.stringify(sealed), /PRIVATE KEY/);
    assert.equal(certificateFingerprint(String(sealed.certPem)), fingerprint);
    const ca = await server.agent("GET", "/api/agent/v1/ca");
    assert.equal(certificateFingerprint(String(ca.body)), fingerprint, "the served CA did not change");
    assert.match(server.logs(), /fleet CA private key sealed with the configured KEK/);
  });
});
