// The change gate's tolerance as pure rules (lib/domain/gate-tolerance.ts) and as fleetctl shows
// and checks them: counts and percentages, durations, "NotReady since", the verdict's sentences.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { describeGate, main as fleetctl } from "@/lib/cli/fleetctl";
import {
  allowedUnready,
  formatDuration,
  gateVerdict,
  notReadySince,
  parseDuration,
  parseMaxUnready,
  ToleranceError,
} from "@/lib/domain/gate-tolerance";

const ruleOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ToleranceError);
    return err.rule;
  }
  assert.fail("accepted");
};

describe("maxUnready", () => {
  test("a count or a percentage; negative, over 100% and anything else refused by rule", () => {
    assert.deepEqual(parseMaxUnready("3"), { kind: "count", count: 3, text: "3" });
    assert.deepEqual(parseMaxUnready("0"), { kind: "count", count: 0, text: "0" });
    assert.deepEqual(parseMaxUnready("12.5%"), { kind: "percent", percent: 12.5, text: "12.5%" });
    assert.equal(
      ruleOf(() => parseMaxUnready("-1")),
      "max_unready_negative",
    );
    assert.equal(
      ruleOf(() => parseMaxUnready("-10%")),
      "max_unready_negative",
    );
    assert.equal(
      ruleOf(() => parseMaxUnready("101%")),
      "max_unready_percentage",
    );
    assert.equal(
      ruleOf(() => parseMaxUnready("x%")),
      "max_unready_percentage",
    );
    for (const bad of ["", "1.5", "three", "1e3", "0x10"])
      assert.equal(
        ruleOf(() => parseMaxUnready(bad)),
        "max_unready_invalid",
        bad,
      );
  });

  test("a percentage of the target set is rounded down, exactly", () => {
    assert.equal(allowedUnready(undefined, 24), 0);
    assert.equal(allowedUnready(parseMaxUnready("3"), 24), 3);
    assert.equal(allowedUnready(parseMaxUnready("10%"), 24), 2);
    assert.equal(allowedUnready(parseMaxUnready("12.5%"), 24), 3);
    assert.equal(allowedUnready(parseMaxUnready("7%"), 100), 7);
    assert.equal(allowedUnready(parseMaxUnready("100%"), 24), 24);
    assert.equal(allowedUnready(parseMaxUnready("50%"), 0), 0);
  });
});

describe("durations", () => {
  test("30m, 2h, 1h30m, 1d, 90s; negative, zero, spaced or over a year refused", () => {
    assert.equal(parseDuration("30m"), 1800);
    assert.equal(parseDuration("1h30m"), 5400);
    assert.equal(parseDuration("1d"), 86_400);
    assert.equal(parseDuration("90s"), 90);
    for (const bad of ["-5m", "0m", "30", "30 minutes", "1y", "400d", ""])
      assert.equal(
        ruleOf(() => parseDuration(bad)),
        "duration_invalid",
        bad,
      );
    assert.equal(formatDuration(5400), "1h30m");
    assert.equal(formatDuration(1800), "30m");
  });

  test("NotReady since: a silent agent's last heartbeat plus the threshold, else the sweeper's record, else now", () => {
    const now = new Date("2026-12-01T12:00:00Z");
    const at = (iso: string) => new Date(iso);
    assert.deepEqual(notReadySince({ lastHeartbeatAt: at("2026-12-01T11:00:00Z") }, now, 60), at("2026-12-01T11:01:00Z"));
    assert.deepEqual(
      notReadySince(
        { lastHeartbeatAt: at("2026-12-01T11:59:50Z"), status: "NotReady", statusChangedAt: at("2026-12-01T10:00:00Z") },
        now,
        60,
      ),
      at("2026-12-01T10:00:00Z"),
    );
    assert.deepEqual(notReadySince({ lastHeartbeatAt: at("2026-12-01T11:59:50Z"), status: "Ready" }, now, 60), now);
  });
});

describe("the verdict", () => {
  test("passes within the tolerance and says so; names the ignored", () => {
    const v = gateVerdict({
      total: 24,
      unready: 2,
      ignored: ["a", "b"],
      maxUnready: parseMaxUnready("3"),
      ignoreNotReadySeconds: 1800,
      what: "group prod",
    });
    assert.equal(v.pass, true);
    assert.equal(v.tolerance, "2 of 24 not ready (tolerated: up to 3)");
    assert.equal(v.ignoredText, "ignored 2 NotReady for more than 30m: a, b");
    const many = gateVerdict({
      total: 1,
      unready: 0,
      ignored: Array.from({ length: 12 }, (_, i) => `c${i}`),
      ignoreNotReadySeconds: 60,
      what: "x",
    });
    assert.match(many.ignoredText!, /: c0, c1, .*c9 and 2 more$/);
    assert.equal(gateVerdict({ total: 0, unready: 0, ignored: [], maxUnready: parseMaxUnready("100%"), what: "x" }).pass, false);
  });
});

describe("fleetctl gate", () => {
  test("checks --max-unready and --ignore-not-ready-longer-than before any request is made", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, FLEET_SERVER: "http://127.0.0.1:9", FLEET_API_KEY: "frk_unused" };
    await assert.rejects(
      fleetctl(["gate", "--group", "prod", "--max-unready", "150%"], env, () => {}),
      {
        message: '--max-unready: "150%" is more than 100%',
      },
    );
    await assert.rejects(
      fleetctl(["gate", "--group", "prod", "--ignore-not-ready-longer-than", "half an hour"], env, () => {}),
      {
        message: /^--ignore-not-ready-longer-than: "half an hour" is not a duration/,
      },
    );
  });

  test("prints the tolerance and the ignored clusters with the verdict", () => {
    const out = describeGate({
      pass: true,
      summary: "2 of 24 cluster(s) matching group prod are not ready, within the tolerance of 3.",
      evaluatedAt: "2026-12-01T11:00:00.000Z",
      clusters: [
        {
          id: "cl_1",
          name: "prod-1",
          status: "NotReady",
          phase: "Active",
          enrolled: false,
          reasons: ["status is NotReady, not Ready"],
        },
      ],
      tolerance: { maxUnready: "3", allowed: 3, unready: 2, total: 24, text: "2 of 24 not ready (tolerated: up to 3)" },
      ignored: {
        longerThan: "30m",
        longerThanSeconds: 1800,
        text: "ignored 1 NotReady for more than 30m: prod-9",
        clusters: [{ id: "cl_9", name: "prod-9", notReadySince: "2026-12-01T10:00:00.000Z" }],
      },
    });
    assert.match(out, /^PASS {2}2 of 24/);
    assert.match(out, /\n {6}2 of 24 not ready \(tolerated: up to 3\)\n/);
    assert.match(out, /\n {6}ignored 1 NotReady for more than 30m: prod-9\n/);
    assert.match(out, /IGNORED\s+NOTREADY SINCE\n[- ]+\nprod-9\s+2026-12-01T10:00:00.000Z/);
  });
});
