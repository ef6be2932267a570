// npm run bench:tls — TLS handshakes per second on the agent port's TLS settings, with a client
// certificate as agents present one: full handshakes and resumed ones (session tickets), with the
// server key the agent port uses (ECDSA P-256) and with the RSA-2048 key it used before, for
// comparison. The server runs in its own process (scripts/bench/tls-handshake-server.ts) and
// reports its CPU time, so "server ms/handshake" is the agent port's cost whatever the client
// costs. Prints numbers; asserts nothing. Loopback only.
//   BENCH_SECONDS per run (default 5), BENCH_CONCURRENCY (default 16), BENCH_PORT (default 0: any)
import { spawn } from "node:child_process";
import { createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import tls from "node:tls";
import forge from "node-forge";
import { makeKey } from "../../tests/helpers/csr";
import { issueClientCertificate } from "../../lib/server/pki/client-certificate";
import { caSigner, loadOrCreateFleetCa, type FleetCa } from "../../lib/server/pki/fleet-ca";
import { derToPem, forgePublicKey, randomSerialHex, signCertificate } from "../../lib/server/pki/x509";
import { issueServerCertificate } from "../../lib/server/pki/server-certificate";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PORT = Number(process.env.BENCH_PORT ?? 0);

/** The agent port's certificate as it was before ECDSA: RSA-2048, same CA, same names. */
function rsaServerCertificate(ca: FleetCa): { certPem: string; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const signer = caSigner(ca);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forgePublicKey(publicKey);
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ shortName: "CN", value: "127.0.0.1" }]);
  cert.setIssuer(signer.issuer);
  cert.setExtensions([
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] },
  ]);
  return {
    certPem: derToPem(signCertificate(cert, signer.privateKey), "CERTIFICATE"),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

type Server = { port: number; cpu(): Promise<{ cpuMicros: number; handshakes: number; resumed: number }>; stop(): Promise<void> };

async function startServer(dir: string, name: string, pair: { certPem: string; keyPem: string }, caPem: string): Promise<Server> {
  const files = { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`), ca: path.join(dir, "ca.crt") };
  writeFileSync(files.cert, pair.certPem);
  writeFileSync(files.key, pair.keyPem);
  writeFileSync(files.ca, caPem);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "./runtime/register-hooks.mjs",
      "--import",
      "tsx",
      "scripts/bench/tls-handshake-server.ts",
      files.cert,
      files.key,
      files.ca,
      randomBytes(48).toString("hex"),
      String(PORT),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const port = Number((await lines.next()).value);
  return {
    port,
    async cpu() {
      child.stdin!.write("cpu\n");
      return JSON.parse(String((await lines.next()).value)) as { cpuMicros: number; handshakes: number; resumed: number };
    },
    stop: () => {
      child.stdin!.end();
      return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));
    },
  };
}

/** One handshake; resolves with the session ticket once the server's byte arrived. */
function handshake(port: number, client: tls.ConnectionOptions, session?: Buffer): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let ticket: Buffer | undefined;
    const socket = tls.connect({ host: "127.0.0.1", port, ...client, session });
    socket.on("session", (s: Buffer) => (ticket = s));
    socket.on("data", () => {});
    // The server ends after its byte: by then its tickets (sent right after the handshake) are in.
    socket.once("end", () => {
      socket.destroy();
      resolve(ticket ?? session);
    });
    socket.on("error", reject);
  });
}

async function run(server: Server, client: tls.ConnectionOptions, resume: boolean) {
  const session = resume ? await handshake(server.port, client) : undefined;
  await server.cpu(); // reset the server's counters
  const end = Date.now() + SECONDS * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        await handshake(server.port, client, session);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const s = await server.cpu();
  const serverMs = s.cpuMicros / 1000 / Math.max(1, s.handshakes);
  return {
    perSecond: Math.round(done / elapsed),
    serverMsPerHandshake: serverMs.toFixed(3),
    // What one core of the server could do if the clients were elsewhere.
    serverCoreBound: Math.round(1000 / serverMs),
    resumedShare: `${Math.round((100 * s.resumed) / Math.max(1, s.handshakes))}%`,
  };
}

async function main() {
  const store = new Map<string, string>();
  const ca = await loadOrCreateFleetCa({
    get: async (n) => store.get(n) ?? null,
    create: async (n, v) => (store.has(n) ? false : (store.set(n, v), true)),
  });
  const { privateKeyPem, publicKeyPem } = makeKey();
  const issued = issueClientCertificate(ca, {
    publicKeyPem: createPublicKey(publicKeyPem).export({ type: "spki", format: "pem" }).toString(),
    clusterId: "cl_bench0000000001",
    validityDays: 1,
  });
  // One context for all connections, as the agent builds it (lib/agent/http.ts): parsing the key
  // and CA per connection would be the client's largest cost.
  const client: tls.ConnectionOptions = {
    secureContext: tls.createSecureContext({ ca: ca.certPem, cert: issued.pem, key: privateKeyPem }),
  };
  const dir = mkdtempSync(path.join(tmpdir(), "bench-tls-"));
  const rows: Record<string, unknown>[] = [];
  try {
    for (const [name, pair] of [
      ["RSA-2048 (before)", rsaServerCertificate(ca)],
      ["ECDSA P-256 (now)", issueServerCertificate(ca, ["127.0.0.1"])],
    ] as const) {
      const server = await startServer(dir, name.split(" ")[0]!, pair, ca.certPem);
      try {
        for (const resume of [false, true]) {
          rows.push({ "server key": name, handshake: resume ? "resumed" : "full", ...(await run(server, client, resume)) });
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`TLS handshakes with a client certificate (RSA-2048), ${CONCURRENCY} at a time, ${SECONDS} s each, loopback:`);
  console.table(rows);
}

await main();
