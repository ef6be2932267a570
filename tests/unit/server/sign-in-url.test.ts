// The URL sign-in builds its redirects and callbacks from comes from configuration, never from a
// request's Host: a production console listening beyond loopback without NEXTAUTH_URL stops at start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EnvError, parseEnv } from "@/lib/env";

test("NEXTAUTH_URL, when set, is the sign-in URL whatever the bind address", () => {
  assert.equal(
    parseEnv({ NODE_ENV: "production", NEXTAUTH_URL: "https://fleet.example.com" }).authUrl,
    "https://fleet.example.com",
  );
  assert.equal(
    parseEnv({ NODE_ENV: "production", HOST: "127.0.0.1", NEXTAUTH_URL: "https://fleet.example.com" }).authUrl,
    "https://fleet.example.com",
  );
});

test("in production, a console listening beyond loopback without NEXTAUTH_URL refuses to start, saying what to set", () => {
  for (const HOST of [undefined, "0.0.0.0", "::", "10.0.0.7"]) {
    assert.throws(
      () => parseEnv({ NODE_ENV: "production", ...(HOST ? { HOST } : {}) }),
      (err: unknown) =>
        err instanceof EnvError &&
        /NEXTAUTH_URL: must be set in production/.test(err.message) &&
        /never from a request's Host header/.test(err.message),
      String(HOST),
    );
  }
  // An empty value is unset (docker-compose and shells make them easily).
  assert.throws(() => parseEnv({ NODE_ENV: "production", NEXTAUTH_URL: "" }), EnvError);
});

test("on loopback the bind address and port are the URL; outside production, localhost", () => {
  assert.equal(parseEnv({ NODE_ENV: "production", HOST: "127.0.0.1", PORT: "3910" }).authUrl, "http://127.0.0.1:3910");
  assert.equal(parseEnv({ NODE_ENV: "production", HOST: "::1", PORT: "3910" }).authUrl, "http://[::1]:3910");
  assert.equal(parseEnv({ NODE_ENV: "production", HOST: "localhost" }).authUrl, "http://localhost:3000");
  assert.equal(parseEnv({ NODE_ENV: "development" }).authUrl, "http://localhost:3000");
  assert.equal(parseEnv({ NODE_ENV: "test", PORT: "4000" }).authUrl, "http://localhost:4000");
});

test("NEXTAUTH_URL must be an http(s) URL", () => {
  for (const NEXTAUTH_URL of ["fleet.example.com", "javascript:alert(1)", "ftp://fleet.example.com"]) {
    assert.throws(() => parseEnv({ NODE_ENV: "production", NEXTAUTH_URL }), /NEXTAUTH_URL/, NEXTAUTH_URL);
  }
});
