// The pure parts of webhook notifications: which addresses a webhook may reach (SSRF), the retry
// schedule, the NotReady/Ready debounce and flapping rules, the payload and its Slack text.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { classifyAddress, webhookAddressAllowed } from "@/lib/domain/network";
import {
  flappingDue,
  nextAttemptAt,
  NOT_READY_HOLD_MS,
  RETRY_BASE_MS,
  RETRY_FOR_MS,
  RETRY_MAX_DELAY_MS,
  slackText,
  webhookBody,
  webhookCreateSchema,
  webhookPayloadSchema,
  withinNotReadyHold,
  type WebhookPayload,
} from "@/lib/domain/webhooks";

describe("webhook target addresses", () => {
  const cases: [string, ReturnType<typeof classifyAddress>][] = [
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "linkLocal"],
    ["0.0.0.0", "unspecified"],
    ["255.255.255.255", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["ff02::1", "multicast"],
    ["2001:4860:4860::8888", "public"],
    // v4-mapped and NAT64 forms are judged by their IPv4 address, in either notation
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::a9fe:a9fe", "linkLocal"],
    ["example.com", "invalid"],
    ["", "invalid"],
  ];
  for (const [address, expected] of cases)
    test(`${address || "(empty)"} is ${expected}`, () => assert.equal(classifyAddress(address), expected));

  test("only public addresses unless private targets are allowed; unspecified and multicast never", () => {
    assert.equal(webhookAddressAllowed("8.8.8.8", false), true);
    for (const a of ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "fd00::1", "::ffff:127.0.0.1"]) {
      assert.equal(webhookAddressAllowed(a, false), false, a);
      assert.equal(webhookAddressAllowed(a, true), true, a);
    }
    for (const a of ["0.0.0.0", "::", "224.0.0.1", "nonsense"]) assert.equal(webhookAddressAllowed(a, true), false, a);
  });
});

describe("retry schedule", () => {
  const created = new Date("2026-01-01T00:00:00Z");
  test("doubles from the base, capped at an hour, with at most 20% jitter either way", () => {
    const delays = [1, 2, 3, 4, 10, 20].map((n) => nextAttemptAt(created, n, created, 0.5)!.getTime() - created.getTime());
    assert.deepEqual(delays.slice(0, 4), [RETRY_BASE_MS, 2 * RETRY_BASE_MS, 4 * RETRY_BASE_MS, 8 * RETRY_BASE_MS]);
    assert.equal(delays[4], RETRY_MAX_DELAY_MS);
    assert.equal(delays[5], RETRY_MAX_DELAY_MS);
    const low = nextAttemptAt(created, 1, created, 0)!.getTime() - created.getTime();
    const high = nextAttemptAt(created, 1, created, 0.9999)!.getTime() - created.getTime();
    assert.equal(low, RETRY_BASE_MS * 0.8);
    assert.ok(high > RETRY_BASE_MS * 1.19 && high <= RETRY_BASE_MS * 1.2, String(high));
  });
  test("gives up once the next attempt would be more than 24 h after the event", () => {
    const late = new Date(created.getTime() + RETRY_FOR_MS - 1000);
    assert.equal(nextAttemptAt(created, 5, late, 0.5), null);
    const early = new Date(created.getTime() + RETRY_FOR_MS - RETRY_MAX_DELAY_MS * 2);
    assert.ok(nextAttemptAt(created, 30, early, 0.5));
  });
});

describe("debounce and flapping", () => {
  const notReadyAt = new Date("2026-01-01T00:00:00Z");
  test("a Ready within the hold cancels both; after it, both are sent", () => {
    assert.equal(withinNotReadyHold(notReadyAt, new Date(notReadyAt.getTime() + 5_000)), true);
    assert.equal(withinNotReadyHold(notReadyAt, new Date(notReadyAt.getTime() + NOT_READY_HOLD_MS - 1)), true);
    assert.equal(withinNotReadyHold(notReadyAt, new Date(notReadyAt.getTime() + NOT_READY_HOLD_MS)), false);
  });
  test("flapping is more changes than the threshold, once an hour", () => {
    assert.equal(flappingDue(4, 4, false), false);
    assert.equal(flappingDue(5, 4, false), true);
    assert.equal(flappingDue(9, 4, true), false);
  });
});

describe("payload", () => {
  const payload: WebhookPayload = {
    id: "d-1",
    type: "cluster.notReady",
    occurredAt: "2026-01-01T00:00:00.000Z",
    cluster: { id: "c-1", name: "prod-eu-1", labels: { env: "prod" } },
    data: { from: "Ready", to: "NotReady", reason: "no heartbeat for 90 s" },
  };
  test("the json body is the payload and parses with its schema", () => {
    const body = webhookBody(payload, "json");
    assert.deepEqual(webhookPayloadSchema.parse(JSON.parse(body)), payload);
  });
  test("the slack body is one text naming the cluster and the reason", () => {
    const body = JSON.parse(webhookBody(payload, "slack")) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ["text"]);
    assert.match(String(body.text), /prod-eu-1\* is NotReady \(no heartbeat for 90 s\)/);
    assert.match(
      slackText({ ...payload, type: "cluster.flapping", data: { changesLastHour: 7, thresholdPerHour: 4 } }),
      /7 status changes in the last hour \(threshold 4\)/,
    );
    assert.match(
      slackText({ ...payload, type: "rollout.paused", cluster: undefined, data: { rolloutName: "v2" } }),
      /rollout \*v2\* paused/,
    );
  });
  test("a subscription needs an http(s) URL without credentials and at least one known event", () => {
    assert.equal(
      webhookCreateSchema.safeParse({ url: "https://hooks.example.com/x", events: ["cluster.removed"] }).success,
      true,
    );
    for (const url of ["ftp://example.com/", "file:///etc/passwd", "https://user:pw@example.com/", "not a url"])
      assert.equal(webhookCreateSchema.safeParse({ url, events: ["cluster.removed"] }).success, false, url);
    assert.equal(webhookCreateSchema.safeParse({ url: "https://example.com/", events: [] }).success, false);
    assert.equal(webhookCreateSchema.safeParse({ url: "https://example.com/", events: ["webhook.test"] }).success, false);
    assert.equal(webhookCreateSchema.safeParse({ url: "https://example.com/", events: ["cluster.nope"] }).success, false);
  });
});
