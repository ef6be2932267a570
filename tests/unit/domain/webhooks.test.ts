// The pure parts of webhook notifications: which addresses a webhook may reach (SSRF), how a
// delivery is signed and checked (the documented receiver too), the retry schedule, the
// NotReady/Ready debounce and flapping rules, the payload and its Slack text.
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { parseSelector, selectorProblem } from "@/lib/domain/selector";
import { redactCredentials, urlsToOrigins } from "@/lib/domain/redact";
import {
  canonicalWebhookUrl,
  inWebhookScope,
  teamEventsProblem,
  webhookPatchSchema,
  webhookScope,
  webhookSelectorSchema,
} from "@/lib/domain/webhooks";
import {
  classifyAddress,
  describeAddress,
  IPV4_RANGES,
  IPV6_RANGES,
  webhookAddressAllowed,
  type AddressClass,
} from "@/lib/domain/network";
import {
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
  WEBHOOK_TOLERANCE_SECONDS,
  webhookSignatureHeaders,
} from "@/lib/domain/webhook-signature";
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
  // [address, class, may a webhook go there: without / with private targets allowed]
  const cases: [string, AddressClass, boolean, boolean][] = [
    // ordinary public addresses stay allowed
    ["8.8.8.8", "public", true, true],
    ["93.184.216.34", "public", true, true],
    ["172.32.0.1", "public", true, true],
    ["100.128.0.1", "public", true, true],
    ["192.0.0.9", "public", true, true], // PCP anycast, carved out of 192.0.0.0/24
    ["2001:4860:4860::8888", "public", true, true],
    ["2606:4700:4700::1111", "public", true, true],
    ["2a00:1450:4001:82a::200e", "public", true, true],
    ["2001:3::1", "public", true, true], // AMT, carved out of 2001::/23
    ["::ffff:8.8.8.8", "public", true, true],
    ["::ffff:0:8.8.8.8", "public", true, true],
    ["64:ff9b::808:808", "public", true, true],
    ["2002:808:808::1", "public", true, true],
    // private use: only when allowed
    ["10.1.2.3", "private", false, true],
    ["172.16.0.1", "private", false, true],
    ["172.31.255.255", "private", false, true],
    ["192.168.1.1", "private", false, true],
    ["100.64.0.1", "private", false, true],
    ["198.18.0.1", "private", false, true],
    ["fc00::1", "private", false, true],
    ["fd12:3456::1", "private", false, true],
    ["fec0::1", "private", false, true], // site-local, deprecated
    ["64:ff9b:1::a00:1", "private", false, true], // local-use NAT64
    ["2001:2::1", "private", false, true], // benchmarking
    ["127.0.0.1", "loopback", false, true],
    ["127.255.0.9", "loopback", false, true],
    ["::1", "loopback", false, true],
    ["[::1]", "loopback", false, true],
    // every form that carries an IPv4 address is that address
    ["::ffff:127.0.0.1", "loopback", false, true],
    ["::ffff:7f00:1", "loopback", false, true],
    ["::ffff:10.0.0.1", "private", false, true],
    ["::ffff:0:10.0.0.1", "private", false, true],
    ["::ffff:0:a00:1", "private", false, true],
    ["::10.0.0.1", "private", false, true],
    ["64:ff9b::10.0.0.1", "private", false, true],
    ["2002:c0a8:101::1", "private", false, true],
    ["2002:7f00:1::", "loopback", false, true],
    // link-local and cloud metadata: never, whatever the setting
    ["169.254.169.254", "linkLocal", false, false],
    ["169.254.170.2", "linkLocal", false, false],
    ["fe80::1", "linkLocal", false, false],
    ["febf::1", "linkLocal", false, false],
    ["fe80::1%eth0", "linkLocal", false, false],
    ["fd00:ec2::254", "metadata", false, false],
    ["fd20:ce::254", "metadata", false, false],
    ["100.100.100.200", "metadata", false, false],
    ["::ffff:169.254.169.254", "linkLocal", false, false],
    ["::ffff:0:169.254.169.254", "linkLocal", false, false],
    ["::ffff:0:a9fe:a9fe", "linkLocal", false, false],
    ["::169.254.169.254", "linkLocal", false, false],
    ["64:ff9b::a9fe:a9fe", "linkLocal", false, false],
    ["2002:a9fe:a9fe::1", "linkLocal", false, false],
    // reserved, documentation, discard, Teredo: never
    ["192.0.0.1", "reserved", false, false],
    ["192.0.2.1", "reserved", false, false],
    ["198.51.100.7", "reserved", false, false],
    ["203.0.113.9", "reserved", false, false],
    ["192.88.99.1", "reserved", false, false],
    ["240.0.0.1", "reserved", false, false],
    ["100::1", "reserved", false, false],
    ["100::ffff:ffff:ffff:ffff", "reserved", false, false],
    ["2001::1", "reserved", false, false],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved", false, false],
    ["2001:db8::1", "reserved", false, false],
    ["3fff::1", "reserved", false, false],
    ["2001:10::1", "reserved", false, false],
    ["5f00::1", "reserved", false, false],
    ["1::1", "reserved", false, false],
    ["4000::1", "reserved", false, false],
    ["2002:c000:201::1", "reserved", false, false], // 6to4 of 192.0.2.1
    // unspecified, broadcast and multicast: never
    ["0.0.0.0", "unspecified", false, false],
    ["0.1.2.3", "unspecified", false, false],
    ["255.255.255.255", "unspecified", false, false],
    ["::", "unspecified", false, false],
    ["::ffff:0.0.0.0", "unspecified", false, false],
    ["224.0.0.1", "multicast", false, false],
    ["239.255.255.250", "multicast", false, false],
    ["ff02::1", "multicast", false, false],
    ["example.com", "invalid", false, false],
    ["nonsense", "invalid", false, false],
    ["", "invalid", false, false],
  ];
  for (const [address, expected, publicOnly, privateAllowed] of cases)
    test(`${address || "(empty)"} is ${expected}: ${publicOnly ? "allowed" : privateAllowed ? "allowed when private targets are" : "never allowed"}`, () => {
      assert.equal(classifyAddress(address), expected);
      assert.equal(webhookAddressAllowed(address, false), publicOnly);
      assert.equal(webhookAddressAllowed(address, true), privateAllowed);
    });

  test("a form that carries an IPv4 address names it, so a refusal says what the target really is", () => {
    assert.deepEqual(describeAddress("2002:a9fe:a9fe::1"), {
      class: "linkLocal",
      what: "6to4 (RFC 3056) of 169.254.169.254: link-local (RFC 3927), where cloud metadata services live",
      prefix: "2002::/16",
    });
  });

  test("each prefix is in its registry's table once (a second row would never be reached)", () => {
    for (const table of [IPV4_RANGES, IPV6_RANGES]) {
      const prefixes = table.map((r) => r.prefix);
      assert.deepEqual(
        prefixes.filter((p, i) => prefixes.indexOf(p) !== i),
        [],
      );
    }
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
  test("with the cluster's page, the slack text links the name to it", () => {
    const url = "https://fleet.example.com/clusters/c-1";
    const text = slackText({ ...payload, cluster: { ...payload.cluster!, owner: "team-db", notes: null, url } });
    assert.match(text, /cluster \*<https:\/\/fleet\.example\.com\/clusters\/c-1\|prod-eu-1>\* is NotReady/);
  });
  test("a webhook URL is stored as the WHATWG parser reads it, and checked in that form", () => {
    const canonical = (url: string) => {
      const parsed = webhookCreateSchema.safeParse({ url, events: ["cluster.removed"] });
      return parsed.success ? parsed.data.url : null;
    };
    // The spellings the parser forgives, each as the URL a delivery would connect to.
    assert.equal(canonical("https:93.184.216.34/services/T0/B0/secret"), "https://93.184.216.34/services/T0/B0/secret");
    assert.equal(canonical("https:/hooks.example.com/secret"), "https://hooks.example.com/secret");
    assert.equal(canonical("https:\\\\hooks.example.com\\services\\secret"), "https://hooks.example.com/services/secret");
    assert.equal(canonical("https://hooks.example.com/ser\tvi\nces/secret"), "https://hooks.example.com/services/secret");
    assert.equal(canonical("  HTTPS://Hooks.Example.COM:443/a b  "), "https://hooks.example.com/a%20b");
    assert.equal(canonical("https://hooks.example.com"), "https://hooks.example.com/");
    assert.equal(webhookPatchSchema.parse({ url: "https:hooks.example.com/x" }).url, "https://hooks.example.com/x");
    assert.equal(canonicalWebhookUrl("not a url"), null);
    // Credentials are refused however they are spelled; the check reads the canonical form.
    for (const url of ["https:user:pw@hooks.example.com/", "https:\\\\user@hooks.example.com/", "ftp:/hooks.example.com/"])
      assert.equal(canonical(url), null, url);
    // The limit holds for what is stored, which the parser may lengthen (percent-encoding).
    assert.equal(canonical(`https://hooks.example.com/${"é".repeat(1000)}`), null);
    assert.equal(canonical(`https://hooks.example.com/${"é".repeat(300)}`)?.length, 26 + 300 * 6);
  });

  test("the audit log's redaction keeps a forgiving spelling's origin only", () => {
    const secretPath = "/services/T0001/B0001/abcdefghijklmnopqrstuvwx";
    for (const [text, origin] of [
      [`https:93.184.216.34${secretPath}`, "https://93.184.216.34"],
      [`https:/hooks.example.com${secretPath}`, "https://hooks.example.com"],
      [`https:\\\\hooks.example.com${secretPath.replaceAll("/", "\\")}`, "https://hooks.example.com"],
      [`https://hooks.example.com/ser\tvices${secretPath}`, "https://hooks.example.com"],
      [`https://hooks.example.com/ser\n\tvices${secretPath}`, "https://hooks.example.com"],
      [`HTTPS:Hooks.Example.com${secretPath}`, "https://hooks.example.com"],
    ]) {
      assert.equal(urlsToOrigins(text!), origin, text);
      assert.equal(redactCredentials(urlsToOrigins(`moved to ${text}.`)), `moved to ${origin}.`, text);
    }
    // Prose and other schemes are as before.
    assert.equal(urlsToOrigins("see https://x.example.com/p/q. Next"), "see https://x.example.com. Next");
    assert.equal(urlsToOrigins("postgres://u:pw@db:5432/x"), "postgres://db:5432");
    assert.equal(urlsToOrigins("http: no URL here, nohttps:x"), "http: no URL here, nohttps:x");
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

describe("webhook signatures", () => {
  const secret = "whsec_test";
  const body = JSON.stringify({ id: "d1", type: "webhook.test" });
  const sentAt = new Date("2026-12-02T12:00:00.000Z");
  const sent = webhookSignatureHeaders(secret, body, sentAt);
  const sentWithLegacy = webhookSignatureHeaders(secret, body, sentAt, { legacy: true });
  const timestamp = sent[WEBHOOK_HEADERS.timestamp]!;
  const signature = sent[WEBHOOK_HEADERS.signature]!;
  const check = (over: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {}) =>
    verifyWebhookSignature({ secret, body, timestamp, signature, now: sentAt, ...over });

  test("the signature is HMAC-SHA256 of timestamp.body under the secret, beside its timestamp", () => {
    assert.equal(timestamp, "1796212800");
    assert.equal(signature, `sha256=${createHmac("sha256", secret).update(`1796212800.${body}`).digest("hex")}`);
    assert.deepEqual(Object.keys(sent).sort(), [WEBHOOK_HEADERS.signature, WEBHOOK_HEADERS.timestamp]);
    assert.deepEqual(check(), { ok: true });
    assert.deepEqual(check({ body: Buffer.from(body) }), { ok: true }, "over the raw bytes as well");
  });

  test("another secret, another body, or the timestamp moved (to refresh a replay) do not verify", () => {
    assert.deepEqual(check({ secret: `${secret}x` }), { ok: false, reason: "mismatch" });
    assert.deepEqual(check({ body: body.replace("d1", "d2") }), { ok: false, reason: "mismatch" });
    const later = new Date(sentAt.getTime() + 3_600_000);
    assert.deepEqual(check({ timestamp: String(Number(timestamp) + 3_600), now: later }), { ok: false, reason: "mismatch" });
    assert.deepEqual(check({ signature: sentWithLegacy[WEBHOOK_HEADERS.legacySignature] }), { ok: false, reason: "mismatch" });
    assert.deepEqual(check({ timestamp: undefined }), { ok: false, reason: "missing" });
    assert.deepEqual(check({ timestamp: "1796212800.5" }), { ok: false, reason: "missing" });
  });

  test("the replayable body-only X-Fleet-Signature is sent only to a subscription that opts into it", () => {
    assert.equal(sent[WEBHOOK_HEADERS.legacySignature], undefined, "not by default");
    assert.equal(webhookSignatureHeaders(secret, body, sentAt, { legacy: false })[WEBHOOK_HEADERS.legacySignature], undefined);
    assert.equal(
      sentWithLegacy[WEBHOOK_HEADERS.legacySignature],
      `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    );
    // The opt-in adds the old header; the timestamped pair is the same.
    assert.equal(sentWithLegacy[WEBHOOK_HEADERS.signature], signature);
    assert.equal(sentWithLegacy[WEBHOOK_HEADERS.timestamp], timestamp);
    // A subscription says so on create (off unless asked) and on PATCH.
    const create = webhookCreateSchema.parse({ url: "https://hooks.example.com/x", events: ["cluster.removed"] });
    assert.equal(create.legacySignature, undefined);
    assert.equal(webhookPatchSchema.parse({ legacySignature: true }).legacySignature, true);
    assert.equal(webhookPatchSchema.safeParse({ legacySignature: "yes" }).success, false);
  });

  test("a delivery replayed more than 5 minutes after it was sent (or dated ahead) is refused", () => {
    const at = (seconds: number) => new Date(sentAt.getTime() + seconds * 1000);
    assert.equal(WEBHOOK_TOLERANCE_SECONDS, 300);
    assert.deepEqual(check({ now: at(300) }), { ok: true });
    assert.deepEqual(check({ now: at(301) }), { ok: false, reason: "stale" });
    assert.deepEqual(check({ now: at(-301) }), { ok: false, reason: "stale" });
    assert.deepEqual(check({ now: at(86_400) }), { ok: false, reason: "stale" });
  });

  test("the documented receiver accepts what the server signs and refuses a replay older than 5 minutes", () => {
    // The verification a receiver copies from docs/integrations/webhooks.md, run as written.
    const doc = readFileSync(path.join(process.cwd(), "docs", "integrations", "webhooks.md"), "utf8");
    const source = /^function verifyFleetSignature\(.*?^}$/ms.exec(doc)?.[0];
    assert.ok(source, "docs/integrations/webhooks.md has verifyFleetSignature");
    const verify = new Function("createHmac", "timingSafeEqual", `${source}\nreturn verifyFleetSignature;`)(
      createHmac,
      timingSafeEqual,
    ) as (secret: string, headers: Record<string, string>, rawBody: Buffer, now: number) => boolean;
    const raw = Buffer.from(body);
    assert.equal(verify(secret, sent, raw, sentAt.getTime()), true);
    assert.equal(verify(secret, sent, raw, sentAt.getTime() + 299_000), true);
    assert.equal(verify(secret, sent, raw, sentAt.getTime() + 301_000), false, "a replay after 5 minutes");
    assert.equal(verify(`${secret}x`, sent, raw, sentAt.getTime()), false);
    assert.equal(verify(secret, sent, Buffer.from(body.replace("d1", "d2")), sentAt.getTime()), false);
    const refreshed = { ...sent, [WEBHOOK_HEADERS.timestamp]: String(Number(timestamp) + 600) };
    assert.equal(verify(secret, refreshed, raw, sentAt.getTime() + 600_000), false, "a replay with a new timestamp");
  });
});

describe("a subscription's label-selector scope", () => {
  test("an event without labels goes only to unscoped subscriptions; a stored selector that no longer parses matches nothing", () => {
    // A rollout pause, the registration failure rate: about nothing labelled.
    assert.equal(inWebhookScope(null, null), true);
    assert.equal(inWebhookScope(parseSelector("env=prod"), null), false);
    // Even a selector every label set satisfies: nothing shows the event is in scope.
    assert.equal(inWebhookScope(parseSelector("!no-such-label"), null), false);
    assert.equal(inWebhookScope(parseSelector("!no-such-label"), {}), true);
    // A registration request's labels decide as a cluster's do.
    assert.equal(inWebhookScope(parseSelector("env=prod"), { env: "prod", team: "a" }), true);
    assert.equal(inWebhookScope(parseSelector("env=prod"), { env: "dev" }), false);
    assert.equal(inWebhookScope("unparsable", { env: "prod" }), false);
    assert.equal(inWebhookScope("unparsable", null), false);
    assert.equal(webhookScope(null), null);
    assert.equal(webhookScope(""), null);
    assert.equal(webhookScope("env in (prod"), "unparsable");
    assert.deepEqual(webhookScope("env=prod"), parseSelector("env=prod"));
  });

  test("a team's subscription hears only of what its team's scope takes in (and its own selector), never of unlabelled events", () => {
    const team = parseSelector("team=payments");
    assert.equal(inWebhookScope(null, { team: "payments" }, team), true);
    assert.equal(inWebhookScope(null, { team: "data" }, team), false, "unscoped, yet bounded by the team");
    assert.equal(inWebhookScope(null, null, team), false, "an event without labels never reaches a team");
    assert.equal(inWebhookScope(parseSelector("env=prod"), { team: "payments", env: "prod" }, team), true);
    assert.equal(inWebhookScope(parseSelector("env=prod"), { team: "payments", env: "dev" }, team), false);
    assert.equal(inWebhookScope(parseSelector("env=prod"), { team: "data", env: "prod" }, team), false);
    assert.equal(inWebhookScope(null, { team: "payments" }, "none"), false, "a team gone, or its scope unusable: nothing");
    assert.equal(teamEventsProblem(["cluster.notReady", "registration.pendingApproval", "rollout.failed"]), null);
    assert.match(teamEventsProblem(["cluster.ready", "rollout.paused"])!, /rollout\.paused is about the whole fleet/);
    assert.match(teamEventsProblem(["registration.failureRate", "rollout.paused"])!, /failureRate and rollout\.paused are/);
  });

  test("null is every cluster; otherwise the selector decides, with the groups' parser and its messages", () => {
    const labels = { env: "prod", region: "eu" };
    assert.equal(inWebhookScope(null, labels), true);
    assert.equal(inWebhookScope(null, {}), true);
    assert.equal(inWebhookScope(parseSelector("env=prod,region in (eu,us)"), labels), true);
    assert.equal(inWebhookScope(parseSelector("env=prod,!region"), labels), false);
    assert.equal(inWebhookScope(parseSelector("env"), {}), false);
    assert.equal(webhookSelectorSchema.parse("  "), null);
    assert.equal(webhookSelectorSchema.parse(null), null);
    assert.equal(webhookSelectorSchema.parse(" env=prod "), "env=prod");
    const bad = webhookSelectorSchema.safeParse("env in (prod");
    assert.equal(bad.success, false);
    assert.equal(bad.error!.issues[0]!.message, selectorProblem("env in (prod"));
  });
});
