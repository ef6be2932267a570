// Refused registrations are counted, not stored one by one, once their source is past its budget
// (lib/domain/refusal-budget.ts; recordAttempt in lib/server/registration/registration-attempts.ts),
// on the engine TEST_ENGINE picks: a flood of 10,000 refusals from one address grows the database
// by less than 100 KB and every refusal is counted exactly; a 429 writes nothing; the attempts
// listing and the Tokens page's summary show the counts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ITEMISED_PER_SOURCE, MINUTE_MS } from "@/lib/domain/refusal-budget";
import { db, dialect } from "@/lib/server/db/client";
import { overview } from "@/lib/server/fleet/overview";
import { deferredAttempts } from "@/lib/server/registration/deferred-attempts";
import { listAttempts, recordAttempt, summarizeRefusals } from "@/lib/server/registration/registration-attempts";
import { handleRegistration } from "@/lib/server/registration/registration-endpoint";
import { appDatabase } from "../helpers/app-database";

appDatabase();

const FLOOD = 10_000;
const ATTACKER = "203.0.113.7";

/** The database's size (SQLite) or the attempts table's with its indexes (PostgreSQL), in bytes. */
async function storedBytes(): Promise<number> {
  if (dialect() === "sqlite") {
    const [pages] = await db().$queryRawUnsafe<{ page_count: number | bigint }[]>("PRAGMA page_count");
    const [size] = await db().$queryRawUnsafe<{ page_size: number | bigint }[]>("PRAGMA page_size");
    return Number(pages!.page_count) * Number(size!.page_size);
  }
  const [row] = await db().$queryRawUnsafe<{ n: number | bigint | string }[]>(
    `SELECT pg_total_relation_size('"RegistrationAttempt"') AS n`,
  );
  return Number(row!.n);
}

async function countsByResult(source: string): Promise<Record<string, number>> {
  const rows = await db().registrationAttempt.groupBy({
    by: ["result"],
    where: { sourceAddress: source },
    _sum: { count: true },
  });
  return Object.fromEntries(rows.map((r) => [r.result, r._sum.count ?? 0]));
}

// All within one minute (a minute's row is per source, token and result).
const minute = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10 * MINUTE_MS;

test("10,000 refusals from one address grow the database by less than 100 KB, and each is counted", async () => {
  // A first write, so the table's first pages are not put down to the flood.
  await recordAttempt({ result: "token_invalid", sourceAddress: "192.0.2.1", message: "warm-up" }, new Date(minute - MINUTE_MS));
  await deferredAttempts().flush();
  const before = await storedBytes();
  for (let i = 0; i < FLOOD; i++) {
    const expired = i % 10 === 0;
    await recordAttempt(
      {
        result: expired ? "token_expired" : "token_invalid",
        sourceAddress: ATTACKER,
        tokenId: expired ? "tok-expired" : null,
        clusterName: `flood-${i}`,
        message: expired ? "The token expired." : "The token is not valid.",
      },
      new Date(minute + 1_000 + (i % 50_000)),
    );
  }
  await deferredAttempts().flush();
  const grown = (await storedBytes()) - before;
  assert.ok(grown < 100 * 1024, `the database grew by ${grown} bytes`);

  const rows = await db().registrationAttempt.findMany({ where: { sourceAddress: ATTACKER }, orderBy: { id: "asc" } });
  // The budget's rows, each itemised (a budget per source and token: the fake token counts as
  // none, the expired one is real), then one row per (token, result) counting the rest.
  assert.equal(rows.length, 2 * ITEMISED_PER_SOURCE + 2);
  const itemised = rows.filter((r) => r.clusterName !== null);
  assert.equal(itemised.length, 2 * ITEMISED_PER_SOURCE);
  assert.ok(itemised.every((r) => r.count === 1));
  assert.deepEqual(
    itemised.filter((r) => r.tokenId === null).map((r) => r.clusterName),
    Array.from({ length: 23 }, (_, i) => `flood-${i}`)
      .filter((_, i) => i % 10 !== 0)
      .slice(0, ITEMISED_PER_SOURCE),
  );
  const counted = rows.filter((r) => r.clusterName === null);
  assert.deepEqual(counted.map((r) => [r.result, r.tokenId, r.at.getTime(), r.clusterName]).sort(), [
    ["token_expired", "tok-expired", minute, null],
    ["token_invalid", null, minute, null],
  ]);
  assert.deepEqual(await countsByResult(ATTACKER), { token_expired: FLOOD / 10, token_invalid: FLOOD - FLOOD / 10 });
});

test("a source's row of the minute grows at each write; the next minute starts a new budget", async () => {
  const source = "198.51.100.20";
  const at = (ms: number) => new Date(minute + ms);
  for (let i = 0; i < 50; i++) await recordAttempt({ result: "token_invalid", sourceAddress: source }, at(2_000));
  await deferredAttempts().flush();
  for (let i = 0; i < 50; i++) await recordAttempt({ result: "token_invalid", sourceAddress: source }, at(3_000));
  await deferredAttempts().flush();
  const countedRows = await db().registrationAttempt.findMany({ where: { sourceAddress: source, count: { gt: 1 } } });
  assert.deepEqual(
    countedRows.map((r) => r.count),
    [100 - ITEMISED_PER_SOURCE],
    "one row, updated",
  );
  for (let i = 0; i < 30; i++) await recordAttempt({ result: "token_invalid", sourceAddress: source }, at(MINUTE_MS + 1_000));
  await deferredAttempts().flush();
  assert.equal(await db().registrationAttempt.count({ where: { sourceAddress: source } }), 2 * ITEMISED_PER_SOURCE + 2);
  assert.deepEqual(await countsByResult(source), { token_invalid: 130 });
});

test("rate-limited registrations (429) write no row; the refusals before the limit are counted", async () => {
  const source = "198.51.100.9";
  const statuses = new Map<number, number>();
  for (let i = 0; i < 300; i++) {
    const reply = await handleRegistration({
      token: `frt_fake${i}_${"x".repeat(43)}`,
      sourceAddress: source,
      readBody: async () => ({ name: `rl-${i}` }),
    });
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
  }
  await deferredAttempts().flush();
  const limited = statuses.get(429) ?? 0;
  assert.ok(limited > 0, `some were rate-limited: ${JSON.stringify([...statuses])}`);
  assert.equal(await db().registrationAttempt.count({ where: { result: "rate_limited" } }), 0);
  const byResult = await countsByResult(source);
  assert.equal(
    Object.values(byResult).reduce((a, b) => a + b, 0),
    300 - limited,
    `every refusal but the 429s is counted: ${JSON.stringify(byResult)}`,
  );
  assert.ok((await db().registrationAttempt.count({ where: { sourceAddress: source } })) <= ITEMISED_PER_SOURCE + 3);
});

test("the attempts listing, the overview and the Tokens page's summary show counted refusals", async () => {
  const listed = await listAttempts({ limit: 500 } as never);
  const attackerRows = listed.items.filter((a) => a.sourceAddress === ATTACKER);
  assert.equal(
    attackerRows.reduce((n, a) => n + a.count, 0),
    FLOOD,
  );
  assert.ok(attackerRows.some((a) => a.count === FLOOD - FLOOD / 10 - ITEMISED_PER_SOURCE));

  const now = new Date(minute + 2 * MINUTE_MS);
  const summary = await summarizeRefusals(now);
  assert.equal(summary.topSources[0]?.sourceAddress, ATTACKER);
  assert.equal(summary.topSources[0]?.refused, FLOOD);
  assert.ok(summary.refused >= FLOOD + 130);
  assert.ok(summary.sources >= 3);

  // A refusal from an unknown address is a source of its own, so no one address is named for all.
  const before = summary.sources;
  await recordAttempt({ result: "token_invalid", sourceAddress: null }, now);
  assert.equal((await summarizeRefusals(now)).sources, before + 1);

  // The overview's tally (last 24 hours) sums counts too.
  const o = await overview();
  assert.ok((o.registrations!.byResult["token_invalid"] ?? 0) >= FLOOD - FLOOD / 10 + 130);
});
