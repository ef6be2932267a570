import "server-only";
import { db } from "@/lib/server/db/client";
import { asPrismaOperation, columns, sql, writeOnDriver } from "@/lib/server/db/sql";
import { forgetCertificates, noteFirstUse, peekCachedCertificate } from "./certificate-cache";
import { revokeCertificatesInBatch } from "./revoke-certificates";
import { onPrimary } from "@/lib/server/agent-port/workers/primary-calls";

/** The certificate an agent presented, as its identity names it. */
export type PresentedCertificate = { clusterId: string; serial: string; fingerprint: string };

/**
 * The first use of a rotated certificate retires the ones before it (docs/protocol.md, rotate): the old
 * certificate stays valid only until the new one is seen.
 *
 * No interactive transaction: a reconnect storm of first heartbeats held a pooled connection per
 * certificate across several round trips and ran the pool dry (500s). The common first use (a new
 * cluster, nothing before it) is one conditional update; with older certificates to retire, the
 * mark and the revocation go as one batch. Two first heartbeats at once: on PostgreSQL the second
 * batch's mark waits for the first's row lock, so its revocation statements run after the first
 * committed and rewrite the same rows; on SQLite writes are serial. Either way the result is the one
 * either alone would give.
 */
export async function markFirstUse(agent: PresentedCertificate): Promise<void> {
  const cached = peekCachedCertificate(agent.fingerprint);
  // A new cluster's only certificate: nothing before it to look for.
  const only = !!cached?.firstOfCluster && cached.serial === agent.serial;
  await recordFirstUse(agent, only, new Date());
  if (only) noteFirstUse(agent.fingerprint);
  // The cached entry of the one in use still says "never used".
  else forgetCertificates([agent.serial]);
}

const certificate = columns("Certificate");

/** Marks the certificate used, once: the first heartbeat to mark it wins. */
const firstUseMark = (serial: string, now: Date) =>
  sql`UPDATE ${certificate.table} SET ${certificate("firstUsedAt")} = ${now}
      WHERE ${certificate("serial")} = ${serial} AND ${certificate("firstUsedAt")} IS NULL`;

const recordFirstUse = onPrimary("record-first-use", async (agent: PresentedCertificate, only: boolean, now: Date) => {
  const client = db();
  const mark = firstUseMark(agent.serial, now);
  if (only) {
    // Every new cluster's first heartbeat: one statement on the driver, no plan, no BEGIN.
    await writeOnDriver(mark);
    return;
  }
  const current = await client.certificate.findUnique({
    where: { serial: agent.serial },
    select: { createdAt: true, firstUsedAt: true },
  });
  if (!current || current.firstUsedAt) return;
  const prior = (
    await client.certificate.findMany({
      where: {
        clusterId: agent.clusterId,
        revokedAt: null,
        serial: { not: agent.serial },
        createdAt: { lte: current.createdAt },
      },
      select: { serial: true },
    })
  ).map((c) => c.serial);
  if (!prior.length) await writeOnDriver(mark);
  else {
    const revocation = {
      clusterId: agent.clusterId,
      certificates: prior,
      kind: "superseded",
      note: "superseded by rotation",
      at: now,
    } as const;
    await revokeCertificatesInBatch(client, revocation, [asPrismaOperation(mark)]);
  }
});
