import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BadResponseError, describeFailure, ProtocolError, TimeoutError } from "@/lib/agent/errors";
import { consoleLogger, formatEntry, LOG_CODES, LOG_PREFIX, redact, type LogLevel } from "@/lib/agent/log";

const server = new URL("https://fleet.example.com:8443");

function errno(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe("failure messages: one distinct, actionable code per cause", () => {
  const protocolCases: Array<[number, string, string, string, RegExp]> = [
    [401, "token_missing", "TOKEN_MISSING", "reject", /--token-file/],
    [401, "token_invalid", "TOKEN_INVALID", "reject", /mint a new token/],
    [401, "token_expired", "TOKEN_EXPIRED", "reject", /expired: mint a new token/],
    [401, "token_revoked", "TOKEN_REVOKED", "reject", /revoked by an operator/],
    [401, "token_exhausted", "TOKEN_EXHAUSTED", "reject", /maximum number of clusters/],
    [403, "label_not_allowed", "LABEL_NOT_ALLOWED", "reject", /change --labels/],
    [422, "missing_required_labels", "MISSING_REQUIRED_LABELS", "reject", /add them with --labels/],
    [409, "cluster_conflict", "CLUSTER_CONFLICT", "reject", /choose another --name/],
    [400, "invalid_request", "INVALID_REQUEST", "reject", /request body/],
    [400, "invalid_csr", "INVALID_CSR", "reject", /agent bug/],
    [413, "payload_too_large", "PAYLOAD_TOO_LARGE", "reject", /64 KiB/],
    [429, "rate_limited", "RATE_LIMITED", "retry", /Retry-After/],
    [401, "client_certificate_required", "CLIENT_CERTIFICATE_REQUIRED", "reregister", /client certificate/],
    [403, "certificate_revoked", "CERTIFICATE_REVOKED", "reregister", /write a new token/],
    [410, "cluster_deregistered", "CLUSTER_DEREGISTERED", "deregistered", /deleting local state/],
    [409, "stale_lease_holder", "STALE_LEASE_HOLDER", "stepDown", /another agent of this cluster took over the agent's Lease/],
    [503, "overloaded", "OVERLOADED", "retry", /waiting 7s as Retry-After asks, with jitter, on the same connection/],
    [503, "database_unavailable", "DATABASE_UNAVAILABLE", "retry", /cannot reach its database: waiting 7s/],
    [503, "unavailable", "SERVER_ERROR", "retry", /HTTP 503/],
    [404, "http_404", "UNEXPECTED_RESPONSE", "retry", /is --server the fleet's agent endpoint/],
  ];
  for (const [status, code, logCode, action, advice] of protocolCases) {
    test(`${status} ${code} -> ${logCode} (${action})`, () => {
      const f = describeFailure(
        new ProtocolError(status, code, "server says why", { field: "labels.team" }, 7000),
        "register",
        server,
      );
      assert.equal(f.code, logCode);
      assert.equal(f.action, action);
      assert.equal(f.status, status);
      assert.match(f.message, advice);
      assert.match(f.message, /server says why/, "the server's sentence is kept");
      assert.ok(LOG_CODES.includes(f.code));
    });
  }

  test("rate limiting carries Retry-After into the decision", () => {
    const f = describeFailure(new ProtocolError(429, "rate_limited", "", undefined, 12_000), "register", server);
    assert.equal(f.retryAfterMs, 12_000);
    assert.match(f.message, /waiting 12s/);
  });

  test("request-shape errors during heartbeats are retried, not fatal", () => {
    assert.equal(describeFailure(new ProtocolError(400, "invalid_request", ""), "heartbeat", server).action, "retry");
    assert.equal(describeFailure(new ProtocolError(413, "payload_too_large", ""), "heartbeat", server).action, "retry");
  });

  const transportCases: Array<[Error, string, RegExp]> = [
    [errno("ECONNREFUSED"), "NET_CONNREFUSED", /is the server running, and is the port right/],
    [new TimeoutError("no response within 15s"), "NET_TIMEOUT", /firewalls/],
    [errno("ETIMEDOUT"), "NET_TIMEOUT", /in time/],
    [errno("ENOTFOUND"), "NET_NOTFOUND", /cannot resolve "fleet\.example\.com"/],
    [errno("EAI_AGAIN"), "NET_NOTFOUND", /DNS/],
    [errno("ECONNRESET", "socket hang up"), "NET_RESET", /client certificate/],
    [errno("EHOSTUNREACH"), "NET_UNREACHABLE", /egress/],
    [errno("UNABLE_TO_VERIFY_LEAF_SIGNATURE"), "TLS_UNTRUSTED", /the pinned CA does not match this server/],
    [errno("SELF_SIGNED_CERT_IN_CHAIN"), "TLS_UNTRUSTED", /the pinned CA does not match this server/],
    [errno("DEPTH_ZERO_SELF_SIGNED_CERT"), "TLS_UNTRUSTED", /the pinned CA does not match this server/],
    [
      errno("ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames"),
      "TLS_HOSTNAME_MISMATCH",
      /the pinned CA does not match this server/,
    ],
    [errno("CERT_HAS_EXPIRED"), "TLS_CERT_EXPIRED", /clock/],
    [errno("ERR_SSL_WRONG_VERSION_NUMBER", "wrong version number"), "TLS_HANDSHAKE", /HTTPS agent port/],
    [
      errno("ECONNRESET", "Client network socket disconnected before secure TLS connection was established"),
      "TLS_HANDSHAKE",
      /handshake/,
    ],
    [errno("ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE", "sslv3 alert handshake failure"), "TLS_HANDSHAKE", /TLS handshake/],
    [errno("EWEIRD", "something odd"), "NET_ERROR", /something odd/],
  ];
  for (const [err, logCode, advice] of transportCases) {
    test(`${(err as { code?: string }).code}: ${err.message.slice(0, 40)} -> ${logCode}`, () => {
      const f = describeFailure(err, "heartbeat", server);
      assert.equal(f.code, logCode);
      assert.equal(f.action, "retry");
      assert.match(f.message, advice);
      assert.match(f.message, /fleet\.example\.com/);
    });
  }

  test("bad 2xx answers and our own abort", () => {
    assert.equal(describeFailure(new BadResponseError("no clusterId"), "register", server).code, "BAD_RESPONSE");
    const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
    assert.equal(describeFailure(abort, "heartbeat", server).action, "stopped");
  });

  test("every server error code maps to its own log code", () => {
    const codes = protocolCases.map(([s, c]) => describeFailure(new ProtocolError(s, c, ""), "register", server).code);
    assert.equal(new Set(codes).size, codes.length);
  });
});

describe("log lines", () => {
  test("stable prefix and code, key=value fields, quoting", () => {
    const line = formatEntry(
      {
        level: "warn",
        code: "TOKEN_EXPIRED",
        message: "the token expired",
        fields: { cluster: "prod-eu-1", note: "two words", skip: undefined, n: 3 },
      },
      new Date("2026-11-29T12:00:00Z"),
    );
    assert.equal(
      line,
      `2026-11-29T12:00:00.000Z WARN  ${LOG_PREFIX} TOKEN_EXPIRED the token expired cluster=prod-eu-1 note="two words" n=3`,
    );
  });

  test("tokens, bearer values and private keys are scrubbed even if a message echoes them", () => {
    const token = "frt_abc123_" + "Z".repeat(40);
    const key = "-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----";
    const text = redact(`server said ${token} and Bearer xyz ${key}`);
    assert.ok(!text.includes("Z".repeat(40)));
    assert.ok(!text.includes("xyz"));
    assert.ok(!text.includes("MIIEv"));
    const line = formatEntry({ level: "error", code: "TOKEN_INVALID", message: `bad ${token}` }, new Date(0));
    assert.ok(!line.includes("Z".repeat(40)));
  });

  test("console logger filters by level and splits stdout/stderr", () => {
    const out: Array<[LogLevel, string]> = [];
    const logger = consoleLogger({
      level: "info",
      write: (line, level) => out.push([level, line]),
      now: () => 0,
      fields: { cluster: "c" },
    });
    logger.log({ level: "debug", code: "HEARTBEAT_OK", message: "hb" });
    logger.log({ level: "info", code: "REGISTERED", message: "ok" });
    logger.log({ level: "error", code: "NET_CONNREFUSED", message: "down" });
    assert.deepEqual(
      out.map(([l]) => l),
      ["info", "error"],
    );
    assert.match(out[0]![1], /fleet-agent REGISTERED ok cluster=c$/);
  });

  test("log codes are unique", () => {
    assert.equal(new Set(LOG_CODES).size, LOG_CODES.length);
  });
});
