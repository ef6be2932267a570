// `npm run edge:certificates -- --out DIR`: writes the files HAProxy in front of the agent port
// needs (deploy/haproxy/haproxy.cfg, docs/operations/agent-port-tls.md) from the fleet CA stored
// in the database, unsealed with the usual KEK (FLEET_CA_KEK or FLEET_CA_KEK_FILE):
//   frontend.pem        a server certificate from the fleet CA for AGENT_HOSTNAMES (or --hostname),
//                       and its key; --frontend incoming issues it from a rollover's incoming CA
//   ca-bundle.pem       the CAs agents' certificates chain to (two during a rollover)
//   backend-client.pem  HAProxy's own client certificate and key; kept while it has 30 days
//                       left, so its pin (printed) stays the same
// --admin-socket PATH also hands the new CA bundle to a running HAProxy through its runtime API,
// which applies it to new connections without a reload. A new frontend.pem needs a reload
// (HAProxy 2.6 can crash committing a CA file after a certificate was committed at run time).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import { env, EnvError } from "../lib/env";
import { createDb } from "../lib/server/db/client";
import { CaKeyError } from "../lib/server/pki/ca-key-seal";
import { decodeCaState } from "../lib/server/pki/current-ca";
import {
  BACKEND_RENEW_BEFORE_MS,
  edgeBackendIdentity,
  edgeFrontendPem,
  proxyFingerprint,
  type EdgeFrontend,
} from "../lib/server/pki/edge-certificates";
import { CA_SECRETS } from "../lib/server/pki/fleet-ca";
import { X509Certificate } from "node:crypto";

const USAGE =
  "Usage: npm run edge:certificates -- --out DIR [--hostname NAME]... [--frontend serving|incoming] [--admin-socket PATH]";

/** Writes through a temporary file, so HAProxy never reads half a file. */
function writeAtomically(file: string, content: string) {
  writeFileSync(`${file}.tmp`, content, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** One command on HAProxy's runtime API (one connection each); throws unless it answers as `ok` expects. */
function runtimeCommand(socket: string, command: string, ok: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    // Written without closing our side: HAProxy closes once it has answered (a commit answers
    // in steps, and a half-closed connection can end it before the last one).
    const conn = net.createConnection(socket, () => conn.write(command));
    conn.on("data", (chunk) => (answer += chunk));
    conn.on("error", reject);
    conn.on("close", () =>
      ok.test(answer) ? resolve(answer) : reject(new Error(`HAProxy refused "${command.split("\n")[0]}": ${answer.trim()}`)),
    );
  });
}

/** Hands `content` to HAProxy as the CA file `file` it loaded, and commits it. */
async function replaceCaFile(socket: string, file: string, content: string) {
  await runtimeCommand(socket, `set ssl ca-file ${file} <<\n${content.trim()}\n\n`, /transaction (created|updated)/i);
  await runtimeCommand(socket, `commit ssl ca-file ${file}\n`, /Success!/);
}

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      hostname: { type: "string", multiple: true },
      frontend: { type: "string", default: "serving" },
      "admin-socket": { type: "string" },
    },
  });
  const out = values.out;
  const frontend = values.frontend as EdgeFrontend;
  if (!out || (frontend !== "serving" && frontend !== "incoming")) throw new EnvError(USAGE);
  const config = env();
  const hostnames = values.hostname?.length ? values.hostname : config.AGENT_HOSTNAMES;
  const db = createDb(config.database);
  let rows;
  try {
    rows = await db.secret.findMany({
      where: { name: { in: [CA_SECRETS.bundle, CA_SECRETS.rollover] } },
      omit: { value: false },
    });
  } finally {
    await db.$disconnect();
  }
  const bundle = rows.find((r) => r.name === CA_SECRETS.bundle)?.value;
  if (!bundle) throw new Error("No fleet CA is stored in this database yet: start the server once first.");
  const state = decodeCaState(bundle, rows.find((r) => r.name === CA_SECRETS.rollover)?.value ?? null);

  mkdirSync(out, { recursive: true });
  const files = {
    frontend: path.resolve(out, "frontend.pem"),
    caBundle: path.resolve(out, "ca-bundle.pem"),
    backend: path.resolve(out, "backend-client.pem"),
  };
  writeAtomically(files.frontend, edgeFrontendPem(state, hostnames, frontend));
  writeAtomically(files.caBundle, state.bundlePem);
  const kept = existsSync(files.backend) ? readFileSync(files.backend, "utf8") : null;
  const keep = kept && Date.parse(new X509Certificate(kept).validTo) - Date.now() > BACKEND_RENEW_BEFORE_MS;
  const backend = keep ? { pem: kept, fingerprint: proxyFingerprint(kept) } : edgeBackendIdentity();
  if (!keep) writeAtomically(files.backend, backend.pem);

  const socket = values["admin-socket"];
  if (socket) await replaceCaFile(socket, files.caBundle, state.bundlePem);
  const cas = state.trusted.map((ca) => ca.fingerprint).join(", ");
  console.log(
    `Wrote ${files.frontend} (from the ${frontend} CA, for ${hostnames.join(", ")}), ${files.caBundle} (CAs ${cas})` +
      `${keep ? "" : ` and ${files.backend}`}.\n` +
      (socket
        ? `HAProxy (${socket}) now trusts the CAs of ${files.caBundle}; reload it to serve the new ${files.frontend}.\n`
        : "") +
      `Pin HAProxy's client certificate on the agent port: CLIENT_CERT_PROXY_FINGERPRINTS=${backend.fingerprint}` +
      (keep ? ` (unchanged, ${files.backend} kept)` : ""),
  );
}

main().catch((err) => {
  console.error(
    err instanceof EnvError || err instanceof CaKeyError ? err.message : `edge:certificates failed: ${(err as Error).message}`,
  );
  process.exit(1);
});
