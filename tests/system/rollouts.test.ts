// Staged agent upgrades over agents speaking the real protocol over real TLS (small in-test
// agents, so one can be told to fail its upgrade), on the engine TEST_ENGINE selects.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { makeCsr } from "../helpers/csr";
import { mintToken, registerCluster, registerWith, registrationBody, rideOut, SYSTEM_POOL } from "../helpers/agent-client";
import { startFleetServer, type ClientCert, type FleetServer } from "../helpers/fleet-server";
import { until } from "../helpers/until";
import { sessionCookie } from "../helpers/console-session";
import { BUILD_AGENT_VERSION } from "@/lib/build-version";

let server: FleetServer;
before(async () => {
  server = await startFleetServer();
  await server.api("PATCH", "/api/v1/settings", { heartbeatIntervalSeconds: 1 });
});
// Every heartbeat loop started here, stopped at the end even when a test failed half-way (a loop
// left running would keep the file alive until its timeout).
const running: Agent[] = [];
after(async () => {
  for (const a of running) a.stop();
  await server?.stop();
});

type Agent = {
  name: string;
  id: string;
  client: ClientCert;
  version: string;
  breaksOnUpgrade: boolean;
  stop: () => void;
  directives: string[];
};

async function startAgent(
  token: string,
  name: string,
  opts: { breaksOnUpgrade?: boolean; version?: string; labels?: Record<string, string> } = {},
): Promise<Agent> {
  const { csr, key } = makeCsr();
  // A 503 overloaded (the signing gate, on a busy machine) decides nothing here: ride it out.
  const reg = await rideOut(
    () =>
      registerWith(server, token, {
        name,
        apiServerUrl: `https://${name}.example`,
        caFingerprint: `sha256:${Buffer.from(name).toString("hex").padEnd(64, "0").slice(0, 64)}`,
        agentVersion: opts.version ?? "1.4.0",
        kubernetesVersion: "1.30.2",
        labels: opts.labels ?? { env: "prod", region: "eu" },
        csr,
      }),
    Date.now() + 60_000,
  );
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const agent: Agent = {
    name,
    id: reg.body.clusterId,
    client: { cert: reg.body.certificate, key },
    version: opts.version ?? "1.4.0",
    breaksOnUpgrade: !!opts.breaksOnUpgrade,
    stop: () => {},
    directives: [],
  };
  let acks: string[] = [];
  let stopped = false;
  agent.stop = () => (stopped = true);
  running.push(agent);
  void (async () => {
    while (!stopped) {
      const hb = await server
        .agent(
          "POST",
          "/api/agent/v1/heartbeat",
          {
            agentVersion: agent.version,
            kubernetesVersion: "1.30.2",
            health: { apiServer: agent.version === "broken" ? "down" : "ok", logs: true, metrics: true },
            acks,
          },
          { client: agent.client },
        )
        .catch(() => null);
      acks = [];
      for (const d of hb?.body?.directives ?? []) {
        acks.push(d.id);
        agent.directives.push(d.type);
        if (d.type === "upgrade") {
          // A healthy agent comes back on the new version; a broken one never does.
          if (!agent.breaksOnUpgrade) agent.version = d.version;
        }
      }
      await new Promise((r) => setTimeout(r, 400));
    }
  })();
  return agent;
}

test("an incompatible agent cannot register", async () => {
  const t = await mintToken(server, { name: "old", maxClusters: 1 });
  const ancient = registrationBody("ancient", { agentVersion: "0.9.0", labels: { env: "prod", region: "eu" } });
  const res = await registerWith(server, t.token, ancient.body);
  assert.equal(res.status, 422);
  assert.equal(res.body.error, "incompatible_agent");
  const versions = await server.api("GET", "/api/v1/versions");
  assert.equal(versions.status, 200);
  assert.equal(versions.body.matrix.recommendedAgentVersion, BUILD_AGENT_VERSION, "this build's own agent");
});

test("a rollout upgrades stage by stage; a failing canary pauses it; resume and abort", async () => {
  const t = await server.api("POST", "/api/v1/registration-tokens", { name: "fleet", maxClusters: 10 });
  const agents = [
    await startAgent(t.body.token, "ro-a-canary", { breaksOnUpgrade: true, labels: { env: "prod", region: "eu", fleet: "ro" } }),
    ...(await Promise.all(
      ["ro-b", "ro-c", "ro-d", "ro-e"].map((n) =>
        startAgent(t.body.token, n, { labels: { env: "prod", region: "eu", fleet: "ro" } }),
      ),
    )),
  ];
  try {
    await until("all Ready and Active", async () => {
      const list = await server.api("GET", "/api/v1/clusters?selector=fleet%3Dro&status=Ready");
      return list.body.total === 5 && list.body.items.every((c: { phase: string }) => c.phase === "Active");
    });
    const created = await server.api("POST", "/api/v1/rollouts", {
      name: "agent 1.5.0",
      targetVersion: "1.5.0",
      selector: "fleet=ro",
      stages: [
        { name: "canary", clusters: 1 },
        { name: "rest", percent: 100 },
      ],
      maxUnavailable: 2,
      waitSeconds: 1,
      failureThreshold: 1,
      clusterTimeoutSeconds: 10,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    assert.deepEqual(
      created.body.stages.map((s: { name: string; total: number }) => [s.name, s.total]),
      [
        ["canary", 1],
        ["rest", 4],
      ],
    );
    const overlapping = await server.api("POST", "/api/v1/rollouts", {
      name: "again",
      targetVersion: "1.5.0",
      selector: "fleet=ro",
    });
    assert.equal(overlapping.status, 409);

    // The canary is upgrading (phase Upgrading) and never comes back on 1.5.0: the rollout pauses.
    await until(
      "canary Upgrading",
      async () => (await server.api("GET", `/api/v1/clusters/${agents[0]!.id}`)).body.phase === "Upgrading",
    );
    const paused = await until("the rollout to pause", async () => {
      const r = await server.api("GET", `/api/v1/rollouts/${id}`);
      return r.body.state === "Paused" && r.body;
    });
    assert.match(paused.pausedReason, /failed/);
    assert.equal(paused.stages[1].upgrading + paused.stages[1].succeeded, 0, "the next stage never started");
    assert.ok(agents[0]!.directives.includes("upgrade"));
    assert.equal(
      (await server.api("GET", `/api/v1/clusters/${agents[0]!.id}`)).body.phase,
      "Active",
      "back to Active after the failure",
    );

    // Resuming accepts the failure and moves on: the rest upgrade, at most 2 at a time.
    const resumed = await server.api("POST", `/api/v1/rollouts/${id}/actions`, { action: "resume" });
    assert.equal(resumed.body.state, "Running");
    let maxUpgrading = 0;
    const done = await until(
      "completion",
      async () => {
        const r = await server.api("GET", `/api/v1/rollouts/${id}`);
        maxUpgrading = Math.max(maxUpgrading, r.body.totals.upgrading);
        return r.body.state === "Completed" && r.body;
      },
      45_000,
    );
    assert.ok(maxUpgrading <= 2, `max unavailable respected (${maxUpgrading})`);
    assert.equal(done.totals.succeeded, 4);
    assert.equal(done.totals.failed, 1);
    for (const a of agents.slice(1))
      assert.equal((await server.api("GET", `/api/v1/clusters/${a.id}`)).body.agentVersion, "1.5.0");
    assert.equal(
      (await server.api("POST", `/api/v1/rollouts/${id}/actions`, { action: "pause" })).status,
      409,
      "a completed rollout cannot be paused",
    );

    const audit = await server.api("GET", `/api/v1/audit?target=${id}&limit=20`);
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    for (const a of ["rollout.create", "rollout.pause", "rollout.resume", "rollout.complete"]) assert.ok(actions.includes(a), a);

    // Abort: a new rollout back to 1.4.1 is stopped at once; nothing is left Upgrading.
    const second = await server.api("POST", "/api/v1/rollouts", {
      name: "back",
      targetVersion: "1.4.1",
      selector: "fleet=ro",
      stages: [{ name: "all", percent: 100 }],
      maxUnavailable: 1,
      waitSeconds: 0,
    });
    const aborted = await server.api("POST", `/api/v1/rollouts/${second.body.id}/actions`, {
      action: "abort",
      reason: "changed plans",
    });
    assert.equal(aborted.body.state, "Aborted");
    assert.equal(aborted.body.totals.upgrading, 0);
    const phases = await server.api("GET", "/api/v1/clusters?selector=fleet%3Dro");
    assert.ok(phases.body.items.every((c: { phase: string }) => c.phase === "Active"));
    // Each cluster stopped mid-upgrade says so in its history: Upgrading -> Active, with the reason.
    const interrupted = aborted.body.clusters.filter((c: { startedAt: string | null }) => c.startedAt);
    assert.ok(interrupted.length > 0, "the abort caught an upgrade under way");
    for (const c of interrupted) {
      const { events } = (await server.api("GET", `/api/v1/clusters/${c.clusterId}`)).body;
      assert.ok(
        events.some(
          (e: { kind: string; from: string; to: string; reason: string }) =>
            e.kind === "phase" &&
            e.from === "Upgrading" &&
            e.to === "Active" &&
            e.reason === "rollout back aborted: changed plans",
        ),
        JSON.stringify(events.slice(0, 3)),
      );
    }
  } finally {
    agents.forEach((a) => a.stop());
  }
});

test("node pools: retire sends drainNodePool and the pool leaves when the agent stops reporting it", async () => {
  const { clusterId, client } = await registerCluster(server, "pools-1", {
    body: { agentVersion: "1.5.0", labels: { env: "prod", region: "us" } },
  });
  const pools = [
    SYSTEM_POOL,
    {
      name: "batch",
      nodeCount: 5,
      readyNodes: 5,
      kubeletVersion: "1.30.2",
      instanceType: "c6i.2xlarge",
      cpuCores: 40,
      memoryGiB: 80,
    },
  ];
  const beat = (p: typeof pools, acks: string[] = []) =>
    server.agent(
      "POST",
      "/api/agent/v1/heartbeat",
      {
        agentVersion: "1.5.0",
        kubernetesVersion: "1.30.2",
        nodePools: p,
        health: { apiServer: "ok", logs: true, metrics: true },
        acks,
      },
      { client },
    );
  await beat(pools);
  await until("pools stored", async () => (await server.api("GET", `/api/v1/clusters/${clusterId}`)).body.nodePools.length === 2);
  const cap = await server.api("GET", "/api/v1/node-pools?by=region");
  const us = cap.body.rows.find((r: { key: string }) => r.key === "us");
  assert.equal(us.nodes, 8);
  assert.equal(us.cpuCores, 46);

  const retired = await server.api("POST", `/api/v1/clusters/${clusterId}/node-pools/batch/retire`, {
    reason: "moving to spot",
  });
  assert.equal(retired.status, 200, JSON.stringify(retired.body));
  assert.equal(retired.body.nodePools.find((p: { name: string }) => p.name === "batch").state, "Retiring");
  const d = await until("drainNodePool", async () =>
    (await beat(pools)).body.directives.find((x: { type: string }) => x.type === "drainNodePool"),
  );
  assert.equal(d.nodePool, "batch");
  await beat([pools[0]!], [d.id]);
  await until(
    "the pool gone",
    async () => (await server.api("GET", `/api/v1/clusters/${clusterId}`)).body.nodePools.length === 1,
  );
});

test("upgrade windows over HTTP: a zone that is not IANA is a 400 naming the field; set, audited, shown; viewers cannot", async () => {
  const group = await server.api("POST", "/api/v1/groups", { name: "windowed", selector: "env=prod" });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  const badZone = await server.api("PATCH", `/api/v1/groups/${group.body.id}`, {
    upgradeWindows: [{ days: ["Sat"], start: "02:00", end: "06:00" }],
    upgradeTimeZone: "Mars/Olympus",
  });
  assert.equal(badZone.status, 400);
  assert.equal(badZone.body.error, "invalid_request");
  assert.ok(
    badZone.body.details.some((d: { field: string }) => d.field === "upgradeTimeZone"),
    JSON.stringify(badZone.body.details),
  );
  const badTime = await server.api("PATCH", `/api/v1/groups/${group.body.id}`, {
    upgradeWindows: [{ days: ["Sat"], start: "2am", end: "06:00" }],
  });
  assert.equal(badTime.status, 400);
  assert.ok(badTime.body.details.some((d: { field: string }) => d.field.startsWith("upgradeWindows.0.start")));

  const set = await server.api("PATCH", `/api/v1/groups/${group.body.id}`, {
    upgradeWindows: [{ days: ["Sat", "Sun"], start: "02:00", end: "06:00" }],
    upgradeTimeZone: "Europe/Berlin",
  });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual([set.body.upgradeWindows[0].days, set.body.upgradeTimeZone], [["Sat", "Sun"], "Europe/Berlin"]);
  const audit = await server.api("GET", `/api/v1/audit?target=${group.body.id}&limit=5`);
  const update = audit.body.items.find((e: { action: string }) => e.action === "group.update");
  assert.equal(update.details.changes.upgradeTimeZone.to, "Europe/Berlin");

  const viewer = { email: "viewer@rollouts.example", password: "a-long-password-1" };
  assert.equal((await server.api("POST", "/api/v1/users", { ...viewer, role: "viewer" })).status, 201);
  const cookie = await sessionCookie(server.consoleUrl, viewer);
  const asViewer = await server.api("PATCH", `/api/v1/groups/${group.body.id}`, { upgradeWindows: null }, { cookie });
  assert.equal(asViewer.status, 403);
  const approve = await server.api("POST", "/api/v1/rollouts/any/actions", { action: "approve" }, { cookie });
  assert.equal(approve.status, 403);
  const plan = await server.api(
    "POST",
    "/api/v1/rollouts/plan",
    { name: "x", targetVersion: "1.5.0", selector: "env" },
    { cookie },
  );
  assert.equal(plan.status, 403);
  assert.equal((await server.api("DELETE", `/api/v1/groups/${group.body.id}`)).status, 204);
});

test("the flagged versions list pages past any cap; a plan names the clusters it skips", async () => {
  for (const n of ["flag-1", "flag-2", "flag-3"])
    // Older than this build's agent (the recommended version): flagged outdated.
    await registerCluster(server, n, { body: { agentVersion: "1.3.0", labels: { env: "dev", region: "eu", flagged: "yes" } } });
  const overview = await server.api("GET", "/api/v1/versions");
  const total = overview.body.flaggedTotal;
  assert.ok(total >= 3, `flagged total ${total}`);
  const seen: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await server.api("GET", `/api/v1/versions/flagged?limit=2&offset=${offset}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.ok(page.body.items.length <= 2);
    seen.push(...page.body.items.map((c: { name: string }) => c.name));
    offset = page.body.nextOffset;
  }
  assert.equal(seen.length, total, "every flagged cluster, page by page");
  assert.deepEqual(seen, [...seen].sort(), "by name");
  assert.equal((await server.api("GET", "/api/v1/versions/flagged?flag=bogus")).status, 400);

  const plan = await server.api("POST", "/api/v1/rollouts/plan", {
    name: "flagged",
    targetVersion: "1.5.0",
    selector: "flagged=yes",
  });
  assert.equal(plan.status, 200, JSON.stringify(plan.body));
  // registered but never heartbeating: Pending health, so planned in, not skipped
  assert.equal(plan.body.clusters, 3);
  assert.equal(plan.body.planned + plan.body.skipped.length, 3);
});
