// `npm run kek:rotate -- --new-kek-file F`: re-seals the fleet CA private key(s) stored in the
// database with a new key-encryption key. The current KEK comes from the usual settings
// (FLEET_CA_KEK or FLEET_CA_KEK_FILE; none when the key is still stored in clear).
// Running instances keep the CA they loaded; restart each with FLEET_CA_KEK_FILE=F afterwards.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { env, EnvError, parseKek } from "../lib/env";
import { createDb } from "../lib/server/db/client";
import { CaKeyError, kekId } from "../lib/server/pki/ca-key-seal";
import { CA_SECRETS, decodeStoredCa, encodeStoredCa } from "../lib/server/pki/fleet-ca";

async function main() {
  const { values } = parseArgs({ options: { "new-kek-file": { type: "string" } } });
  const file = values["new-kek-file"];
  if (!file) throw new EnvError("Usage: npm run kek:rotate -- --new-kek-file <file holding the new 32-byte KEK>");
  const config = env();
  let newKek: Buffer;
  try {
    newKek = parseKek(readFileSync(file, "utf8"), "--new-kek-file");
  } catch (err) {
    if (err instanceof EnvError) throw err;
    throw new EnvError(`cannot read --new-kek-file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const oldKek = config.fleetCaKek;
  const db = createDb(config.database);
  try {
    const resealed = await db.$transaction(async (tx) => {
      const names: string[] = [];
      for (const name of [CA_SECRETS.bundle, CA_SECRETS.rollover]) {
        const row = await tx.secret.findUnique({ where: { name }, omit: { value: false } });
        if (!row) continue;
        const { ca, fields } = decodeStoredCa(row.value, oldKek, name);
        const { version: _v, keyPem: _k, sealedKey: _s, certPem: _c, ...extra } = fields;
        const value = encodeStoredCa({ keyPem: ca.keyPem, certPem: ca.certPem }, newKek, extra);
        const updated = await tx.secret.updateMany({ where: { name, value: row.value }, data: { value } });
        if (updated.count !== 1) throw new Error(`${name} changed while re-sealing; run the command again.`);
        names.push(`${name} (CA ${ca.fingerprint})`);
      }
      return names;
    });
    if (!resealed.length) throw new Error("No fleet CA is stored in this database yet: start the server once first.");
    console.log(
      `Re-sealed with the new KEK (id ${kekId(newKek)}): ${resealed.join(", ")}.\n` +
        `Now set FLEET_CA_KEK_FILE=${file} (and unset FLEET_CA_KEK) on every instance and restart them;\n` +
        "back the new KEK up apart from the database, then destroy the old one.",
    );
  } finally {
    await db.$disconnect();
  }
}

main().catch((err) => {
  console.error(
    err instanceof EnvError || err instanceof CaKeyError ? err.message : `kek:rotate failed: ${(err as Error).message}`,
  );
  process.exit(1);
});
