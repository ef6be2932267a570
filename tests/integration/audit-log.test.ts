// The audit log for incident review, on a migrated database of TEST_ENGINE: the filters (actor,
// action, target by id or by name, time range) are evaluated on the server, targets carry their
// names (a removed cluster's from its tombstone, a deleted group's as recorded), paging is keyset
// and the CSV export holds exactly the filtered entries with ISO times, escaped and safe to open
// in a spreadsheet; whatever a caller records, a URL keeps its origin only and no credential is
// stored.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { auditFilterSchema, auditQuerySchema } from "@/lib/contracts/audit";
import { auditRow, recordAudit, SYSTEM_ACTOR, type Actor } from "@/lib/server/audit/record-audit";
import { exportAudit } from "@/lib/server/audit/export-audit";
import { listAudit } from "@/lib/server/audit/list-audit";
import { db } from "@/lib/server/db/client";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const T0 = Date.parse("2026-11-30T10:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const alice: Actor = { type: "user", id: "u-alice", label: "alice@example.com" };
const bob: Actor = { type: "user", id: "u-bob", label: "bob@example.com" };

describe(`the audit log on ${testEngine()}`, () => {
  before(async () => {
    await db().cluster.create({ data: { id: "c-prod", name: "prod-eu-1" } });
    await db().clusterTombstone.create({
      data: { clusterId: "c-gone", name: "prod-eu-old", deregisteredBy: "alice@example.com" },
    });
    const group = await db().clusterGroup.create({ data: { name: "eu-fleet", selector: "region=eu" } });
    const rows = [
      {
        ...auditRow(alice, "cluster.update", { type: "cluster", id: "c-prod" }, { labels: { added: { tier: "1" } } }),
        at: at(0),
      },
      {
        ...auditRow(bob, "cluster.deregister", { type: "cluster", id: "c-gone" }, { reason: '=HYPERLINK("http://evil")' }),
        at: at(10),
      },
      { ...auditRow(alice, "group.update", { type: "group", id: group.id }, { name: "eu-fleet" }), at: at(20) },
      {
        ...auditRow(
          bob,
          "group.delete",
          { type: "group", id: "g-deleted" },
          { name: "old-group", note: 'a "quoted", value\nover lines' },
        ),
        at: at(30),
      },
      { ...auditRow(SYSTEM_ACTOR, "settings.update", { type: "settings", id: "fleet" }), at: at(40) },
    ];
    // One at a time, so ids follow time as they do in the server.
    for (const data of rows) await db().auditLog.create({ data });
    for (let i = 0; i < 7; i++) {
      await db().auditLog.create({
        data: { ...auditRow(bob, "token.mint", { type: "registrationToken", id: `t-${i}` }), at: at(50 + i) },
      });
    }
  });

  const list = (q: Record<string, string>) => listAudit(auditQuerySchema.parse(q));
  const actions = (items: { action: string }[]) => items.map((i) => i.action);

  test("actor and action filter by prefix, on the server", async () => {
    const byAlice = await list({ actor: "alice@" });
    assert.deepEqual(actions(byAlice.items), ["group.update", "cluster.update"]);
    const groups = await list({ action: "group." });
    assert.deepEqual(actions(groups.items), ["group.delete", "group.update"]);
    assert.deepEqual(actions((await list({ actor: "bob", action: "cluster." })).items), ["cluster.deregister"]);
  });

  test("target matches an id prefix or a target's name, a removed cluster's too", async () => {
    assert.deepEqual(actions((await list({ target: "c-prod" })).items), ["cluster.update"]);
    assert.deepEqual(actions((await list({ target: "prod-eu" })).items), ["cluster.deregister", "cluster.update"]);
    assert.deepEqual(actions((await list({ target: "prod-eu-old" })).items), ["cluster.deregister"]);
    assert.deepEqual(actions((await list({ target: "eu-fleet" })).items), ["group.update"]);
    assert.equal((await list({ target: "nothing-like-this" })).items.length, 0);
  });

  test("entries carry their target's name: current, from a tombstone, or as recorded", async () => {
    const { items } = await list({ action: "cluster." });
    const names = Object.fromEntries(items.map((i) => [i.targetId, i.targetName]));
    assert.equal(names["c-prod"], "prod-eu-1");
    assert.equal(names["c-gone"], "prod-eu-old");
    const deleted = (await list({ action: "group.delete" })).items[0]!;
    assert.equal(deleted.targetName, "old-group");
    const settings = (await list({ action: "settings." })).items[0]!;
    assert.equal(settings.targetName, null);
    assert.equal(settings.actor, "system");
  });

  test("a time range: from inclusive, to exclusive; a reversed range is refused", async () => {
    const range = await list({ from: at(10).toISOString(), to: at(30).toISOString() });
    assert.deepEqual(actions(range.items), ["group.update", "cluster.deregister"]);
    const withZone = await list({ from: "2026-11-30T11:10:00+01:00", to: "2026-11-30T11:20:00+01:00" });
    assert.deepEqual(actions(withZone.items), ["cluster.deregister"]);
    assert.equal(auditQuerySchema.safeParse({ from: at(30).toISOString(), to: at(10).toISOString() }).success, false);
    assert.equal(auditFilterSchema.safeParse({ from: "yesterday" }).success, false);
    assert.equal(
      auditFilterSchema.safeParse({ from: "2026-11-30T10:00:00" }).success,
      false,
      "a time without a zone is ambiguous",
    );
  });

  test("pages follow each other without gaps or repeats, with the filter kept", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await list({ action: "token.", limit: "3", ...(cursor ? { cursor } : {}) });
      seen.push(...res.items.map((i) => i.targetId!));
      if (!res.nextCursor) break;
      cursor = res.nextCursor;
    }
    assert.deepEqual(seen, ["t-6", "t-5", "t-4", "t-3", "t-2", "t-1", "t-0"]);
  });

  /** A CSV body back to rows (RFC 4180: quoted fields, doubled quotes, CRLF records). */
  function parseCsv(text: string): string[][] {
    const rows: string[][] = [];
    let row: string[] = [];
    let cell = "";
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (quoted && ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = !quoted;
      } else if (!quoted && ch === ",") {
        row.push(cell);
        cell = "";
      } else if (!quoted && ch === "\r" && text[i + 1] === "\n") {
        row.push(cell);
        rows.push(row);
        row = [];
        cell = "";
        i++;
      } else {
        cell += ch;
      }
    }
    return rows;
  }

  async function exported(filter: Record<string, string>) {
    const text = await new Response(await exportAudit(auditFilterSchema.parse(filter))).text();
    assert.ok(text.endsWith("\r\n"));
    return parseCsv(text);
  }

  test("the CSV export holds exactly the filtered entries, ISO times, escaped and formula-safe", async () => {
    const [header, ...rows] = await exported({ actor: "bob", action: "cluster." });
    assert.deepEqual(header, ["id", "at", "actor_type", "actor", "action", "target_type", "target_id", "target_name", "details"]);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row![1], at(10).toISOString());
    assert.equal(row![4], "cluster.deregister");
    assert.equal(row![7], "prod-eu-old");
    // The details are JSON, which starts with "{": never a formula. A name that starts with "=" is.
    assert.deepEqual(JSON.parse(row![8]!), { reason: '=HYPERLINK("http://evil")' });

    const [, deleted] = await exported({ action: "group.delete" });
    assert.equal(deleted![7], "old-group");
    assert.deepEqual(JSON.parse(deleted![8]!), { name: "old-group", note: 'a "quoted", value\nover lines' });

    const all = await exported({});
    assert.equal(all.length, 1 + 12, "header and every entry");
    assert.deepEqual(
      all.slice(1).map((r) => r[1]),
      [...all.slice(1).map((r) => r[1])].sort().reverse(),
      "newest first",
    );
    const range = await exported({ from: at(50).toISOString(), to: at(53).toISOString() });
    assert.deepEqual(
      range.slice(1).map((r) => r[6]),
      ["t-2", "t-1", "t-0"],
    );
  });

  test("an actor whose name starts like a formula is exported as text", async () => {
    await db().auditLog.create({
      data: {
        ...auditRow({ type: "apiKey", id: "k1", label: "=cmd|' /C calc'!A0" }, "cluster.update", {
          type: "cluster",
          id: "c-prod",
        }),
        at: at(90),
      },
    });
    const [, row] = await exported({ actor: "=cmd" });
    assert.equal(row![3], "'=cmd|' /C calc'!A0");
  });

  test("details keep a URL's origin only and no credential, whatever the caller passes", async () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----";
    await recordAudit(db(), alice, "secrets.probe", null, {
      url: "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
      changes: { url: { from: "https://hooks.example.com/a?sig=abc", to: "http://[::1]:9000/hook#frag" } },
      hubServer: "https://admin:hunter2@hub.example.com:6443/k8s/clusters/c-1",
      reason: "moved to https://hooks.example.com/x/y/z, was frt_abcdefabcdef_SECRETsecret0123456789abcd",
      note: `key frk_abcdefabcdef_SECRETsecret0123456789abcd, whsec_c2VjcmV0, ${pem}, Bearer eyJhbGciOi.x.y`,
      authorization: "Bearer abc",
      clientSecret: "s3cr3t",
      passwordChanged: true,
      targets: ["https://a.example/one/two", "kept as it is"],
    });
    const expected = {
      url: "https://hooks.slack.com",
      changes: { url: { from: "https://hooks.example.com", to: "http://[::1]:9000" } },
      hubServer: "https://hub.example.com:6443",
      reason: "moved to https://hooks.example.com, was frt_[redacted]",
      note: "key frk_[redacted], whsec_[redacted], [redacted private key], Bearer [redacted]",
      authorization: "[redacted]",
      clientSecret: "[redacted]",
      passwordChanged: true,
      targets: ["https://a.example", "kept as it is"],
    };
    const [entry] = (await list({ action: "secrets.probe" })).items;
    assert.deepEqual(entry?.details, expected);
    const [, row] = await exported({ action: "secrets.probe" });
    assert.deepEqual(JSON.parse(row![8]!), expected);
    for (const secret of ["services/T000", "sig=abc", "hunter2", "SECRETsecret", "c2VjcmV0", "MIIEvQ", "eyJhbGciOi", "s3cr3t"])
      assert.ok(!JSON.stringify(await db().auditLog.findMany()).includes(secret), secret);
  });
});
