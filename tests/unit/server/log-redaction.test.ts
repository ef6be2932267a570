// The log keeps request header values out, whoever logs what: an HTTP client's error with its
// request headers, a message quoting an Authorization header, a header in a field of its own.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { log, setLogLevel } from "@/lib/server/log";
import { captureStderr } from "../../helpers/capture-stderr";

const BEARER = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXNlc3Npb24.sig-7f3a9c";
const COOKIE = "next-auth.session-token=s3cr3t-cookie-value";

const logged = async (call: () => void) => (await captureStderr(call)).output;

describe("log redaction", () => {
  setLogLevel("debug");

  test("a logged error carrying request headers keeps their names, never their values", async () => {
    const err = Object.assign(new Error("request failed with HTTP 401"), {
      code: 401,
      headers: { Authorization: `Bearer ${BEARER}`, cookie: COOKIE, "x-request-id": "r-1" },
      request: { url: "https://hub.example.com/apis", rawHeaders: ["Authorization", `Bearer ${BEARER}`] },
      config: { authorization: `Bearer ${BEARER}` },
    });
    const line = await logged(() => log.error("unhandled error", { error: err }));
    assert.ok(!line.includes(BEARER), line);
    assert.ok(!line.includes("s3cr3t-cookie-value"), line);
    assert.ok(!line.includes("r-1"), "every header value goes, not only the known secret ones");
    assert.match(line, /request failed with HTTP 401/);
    assert.match(line, /Authorization/);
    assert.match(line, /https:\/\/hub\.example\.com\/apis/);
  });

  test("a header quoted in a message or a field is redacted; prose about bearer tokens stays", async () => {
    const line = await logged(() =>
      log.warn(`call failed: Authorization: Bearer ${BEARER}`, {
        error: `upstream said {"authorization":"Basic dXNlcjpwYXNzd29yZA=="} and Cookie: ${COOKIE}`,
        authorization: BEARER,
        hint: "paste a kubeconfig with a valid bearer token",
      }),
    );
    assert.ok(!line.includes(BEARER), line);
    assert.ok(!line.includes("dXNlcjpwYXNzd29yZA=="), line);
    assert.ok(!line.includes("s3cr3t-cookie-value"), line);
    assert.match(line, /paste a kubeconfig with a valid bearer token/);
  });

  test("a cyclic error object is logged, not thrown on", async () => {
    const err = Object.assign(new Error("socket hang up"), { socket: {} as Record<string, unknown> });
    err.socket.self = err.socket;
    assert.match(await logged(() => log.error("failed", { error: err })), /socket hang up.*\[circular\]/);
  });
});
