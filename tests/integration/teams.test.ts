// Teams and their members (lib/server/teams/teams.ts) on the engine TEST_ENGINE picks: scopes
// that are no boundary are refused, a scope change says who enters and leaves, a team keeps its
// last admin, deleting a team with members needs its name, and every change is audited.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createTeamSchema, updateTeamSchema } from "@/lib/domain/teams";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import {
  addTeamMember,
  createTeam,
  deleteTeam,
  previewScope,
  removeTeamMember,
  updateTeam,
  updateTeamMember,
} from "@/lib/server/teams/teams";
import { signInWithOidc } from "@/lib/server/auth/oidc-sign-in";
import { userTeams } from "@/lib/server/auth/principal";
import { getSettings, updateSettings } from "@/lib/server/settings/settings";
import { parseSelector, type Selector } from "@/lib/domain/selector";
import { listItems } from "@/lib/server/clusters/list-clusters";
import { summariseLabels } from "@/lib/server/clusters/label-summary";
import { capacity } from "@/lib/server/node-pools/node-pools";
import { versionsOverview } from "@/lib/server/versions/compatibility";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { mintTokenSchema } from "@/lib/domain/tokens";
import { refusal } from "../helpers/api-refusal";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ACTOR: Actor = { type: "user", id: null, label: "admin@example.com", allowedAs: { role: "admin", team: null } };

async function cluster(name: string, labels: Record<string, string>, facts: { agentVersion?: string; nodes?: number } = {}) {
  await db().cluster.create({
    data: {
      id: `c-${name}`,
      name,
      phase: "Active",
      registeredAt: new Date(),
      agentVersion: facts.agentVersion ?? null,
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
      ...(facts.nodes ? { nodePools: { create: [{ name: "general", nodeCount: facts.nodes, readyNodes: facts.nodes }] } } : {}),
    },
  });
}

const audit = async (action: string) =>
  (await db().auditLog.findMany({ where: { action }, orderBy: { id: "asc" } })).map((r): Record<string, unknown> => ({
    ...(JSON.parse(r.details) as Record<string, unknown>),
    allowedAs: { role: r.allowedRole, team: r.allowedTeam },
  }));

describe(`teams on ${testEngine()}`, () => {
  test("a scope that is empty, too long or matches everything is refused with a message", () => {
    for (const selector of ["", "!legacy", "env", `team in (${"x,".repeat(60)}y)`, "a=".padEnd(1100, "b")]) {
      const parsed = createTeamSchema.safeParse({ name: "bad", selector });
      assert.equal(parsed.success, false, selector.slice(0, 40));
      assert.ok(parsed.error!.issues[0]!.message.length > 10);
    }
    assert.equal(updateTeamSchema.safeParse({ selector: "!x" }).success, false);
  });

  test("a team's scope, its preview and a scope change: who enters, who leaves, audited", async () => {
    await cluster("pay-eu", { team: "payments", region: "eu" });
    await cluster("pay-us", { team: "payments", region: "us" });
    await cluster("data-eu", { team: "data", region: "eu" });
    const team = await createTeam(ACTOR, { name: "payments", selector: "team=payments" });
    assert.deepEqual(team.clusters, { count: 2, names: ["pay-eu", "pay-us"] });
    const preview = await previewScope({ selector: "region=eu", team: team.id });
    assert.deepEqual(
      { matches: preview.matches, entering: preview.entering, leaving: preview.leaving },
      {
        matches: { count: 2, names: ["data-eu", "pay-eu"] },
        entering: { count: 1, names: ["data-eu"] },
        leaving: { count: 1, names: ["pay-us"] },
      },
    );
    assert.match((await previewScope({ selector: "!x" })).problem!, /label value/);
    const updated = await updateTeam(ACTOR, team.id, { selector: "region=eu" });
    assert.equal(updated.selector, "region=eu");
    const [entry] = (await audit("team.update")).slice(-1);
    assert.deepEqual(
      { entering: entry!.clustersEntering, leaving: entry!.clustersLeaving, allowedAs: entry!.allowedAs },
      { entering: 1, leaving: 1, allowedAs: { role: "admin", team: null } },
    );
    assert.equal((await refusal(createTeam(ACTOR, { name: "payments", selector: "team=x" }))).code, "conflict");
  });

  test("members: users by email, API keys, SSO groups; the last admin stays; deleting a team with members needs its name", async () => {
    const user = await db().user.create({ data: { email: "pat@example.com", role: "none" } });
    const other = await db().user.create({ data: { email: "sam@example.com", role: "none" } });
    const key = await db().apiKey.create({ data: { id: "k1", name: "ci", secretHash: "x", role: "none", createdById: user.id } });
    const team = await createTeam(ACTOR, { name: "data", selector: "team=data" });
    let t = await addTeamMember(ACTOR, team.id, { user: "PAT@example.com", role: "admin" });
    t = await addTeamMember(ACTOR, team.id, { user: other.id, role: "operator" });
    t = await addTeamMember(ACTOR, team.id, { apiKey: key.id, role: "viewer" });
    t = await addTeamMember(ACTOR, team.id, { ssoGroup: "data-oncall", role: "operator" });
    assert.deepEqual(
      t.members.map((m) => [m.kind, m.name, m.role]),
      [
        ["user", "pat@example.com", "admin"],
        ["user", "sam@example.com", "operator"],
        ["apiKey", "ci", "viewer"],
        ["ssoGroup", "data-oncall", "operator"],
      ],
    );
    assert.equal((await refusal(addTeamMember(ACTOR, team.id, { user: other.id, role: "viewer" }))).code, "conflict");
    assert.equal(
      (await refusal(addTeamMember(ACTOR, team.id, { user: "nobody@example.com", role: "viewer" }))).code,
      "not_found",
    );

    const admin = t.members[0]!;
    assert.equal((await refusal(updateTeamMember(ACTOR, team.id, admin.id, { role: "operator" }))).code, "last_team_admin");
    assert.equal((await refusal(removeTeamMember(ACTOR, team.id, admin.id))).code, "last_team_admin");
    await updateTeamMember(ACTOR, team.id, t.members[1]!.id, { role: "admin" });
    t = await removeTeamMember(ACTOR, team.id, admin.id);
    assert.equal(t.members.length, 3, "with another admin, the first may go");

    const unconfirmed = await refusal(deleteTeam(ACTOR, team.id, {}));
    assert.equal(unconfirmed.code, "team_confirmation_required");
    assert.match(unconfirmed.message, /3 members/);
    assert.equal((await refusal(deleteTeam(ACTOR, team.id, { confirm: "Data" }))).code, "team_confirmation_required");
    const token = await mintToken(
      ACTOR,
      mintTokenSchema.parse({ name: "data-install", fixedLabels: { team: "data" } }),
      (await userTeams({ id: other.id, ssoGroups: null })).find((g) => g.team === "data")!,
    );
    assert.equal(token.team, "data");
    await deleteTeam(ACTOR, team.id, { confirm: "data" });
    assert.equal(await db().teamMember.count({ where: { teamId: team.id } }), 0, "its memberships go with it");
    const left = await db().registrationToken.findUniqueOrThrow({ where: { id: token.id } });
    assert.ok(left.revokedAt, "its tokens stop with it: no scope is left to land clusters in");
    assert.deepEqual(
      (await audit("team.delete")).map((d) => [d.name, d.members, d.revokedTokens]),
      [["data", 3, 1]],
    );
    assert.deepEqual(
      (await audit("team.member_remove")).map((d) => (d.member as { name: string }).name),
      ["pat@example.com"],
    );
    assert.equal((await audit("team.member_add")).length >= 4, true);
  });

  test("single sign-on: a person whose group a team binds gets in with that team's role only, refreshed at each sign-in", async () => {
    await updateSettings(ACTOR, {
      ssoRoleMapping: { claim: "groups", rules: [{ value: "platform", role: "admin" }], defaultRole: "none" },
    });
    const team = await createTeam(ACTOR, { name: "billing", selector: "team=billing" });
    await addTeamMember(ACTOR, team.id, { ssoGroup: "billing-eng", role: "operator" });
    const issuer = "https://idp.example.com";
    const claims = (groups: string[]) => ({ email: "lee@example.com", email_verified: true, groups });

    assert.equal(await signInWithOidc(issuer, "lee", claims(["billing-eng", "everyone"])), null, "let in by the team's group");
    const lee = await db().user.findUniqueOrThrow({ where: { email: "lee@example.com" } });
    assert.equal(lee.role, "none", "no fleet role: the mapping gives none");
    assert.deepEqual(
      (await userTeams(lee)).map((g) => [g.team, g.role]),
      [["billing", "operator"]],
    );
    assert.deepEqual(await signInWithOidc(issuer, "lee", claims(["everyone"])), { refused: "SsoNoRole" });
    const refreshed = await db().user.findUniqueOrThrow({ where: { id: lee.id } });
    assert.deepEqual(await userTeams(refreshed), [], "out of the group at the provider: out of the team at the next sign-in");
    await updateSettings(ACTOR, { ssoRoleMapping: null });
  });

  test("a team member's aggregates count their clusters only: label values, capacity, versions", async () => {
    await cluster("agg-mine", { team: "agg-mine", region: "eu" }, { agentVersion: "1.4.0", nodes: 3 });
    await cluster("agg-theirs", { team: "agg-theirs", region: "eu" }, { agentVersion: "1.3.0", nodes: 7 });
    const scope = [parseSelector("team=agg-mine")];
    const labels = await summariseLabels(scope);
    assert.equal(labels.clusters, 1);
    assert.deepEqual(
      labels.keys.find((k) => k.key === "team")?.values.map((v) => v.value),
      ["agg-mine"],
    );
    const pools = await capacity("region", scope);
    assert.deepEqual(
      pools.rows.map((r) => [r.key, r.clusters, r.nodes]),
      [["eu", 1, 3]],
    );
    assert.ok((await capacity("region")).rows.find((r) => r.key === "eu")!.nodes >= 10, "the fleet's capacity counts both");
    const versions = await versionsOverview(scope);
    assert.deepEqual(versions.agentVersions, [{ version: "1.4.0", count: 1 }]);
  });

  test("a cluster registered twice names its twin to a team member only when the twin is in their scope", async () => {
    for (const [name, team] of [
      ["twin-in", "twins"],
      ["twin-out", "other"],
    ] as const)
      await db().cluster.create({
        data: {
          id: `c-${name}`,
          name,
          phase: "Active",
          registeredAt: new Date(),
          clusterUid: "uid-twin",
          labels: { create: [{ key: "team", value: team }] },
        },
      });
    const settings = await getSettings();
    const reasonOf = async (scope: Selector[] | null) =>
      (await listItems(["c-twin-in"], new Date(), settings, scope))[0]!.reasons.find((r) => r.code === "sameCluster");
    assert.deepEqual(await reasonOf(null), { code: "sameCluster", clusters: [{ id: "c-twin-out", name: "twin-out" }] });
    assert.equal(await reasonOf([parseSelector("team=twins")]), undefined, "the twin outside the scope is not named");
  });
});
