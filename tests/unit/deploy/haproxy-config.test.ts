// deploy/haproxy/haproxy.cfg offers agents the agent port's own TLS policy (AGENT_TLS_POLICY):
// the same minimum version and the same suites, TLS 1.3's and TLS 1.2's each in their directive.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { AGENT_TLS_POLICY } from "@/lib/server/agent-port/agent-server";

const CONFIG = readFileSync(path.join(process.cwd(), "deploy/haproxy/haproxy.cfg"), "utf8");
const directive = (name: string) => new RegExp(`^\\s*${name}\\s+(.+)$`, "m").exec(CONFIG)?.[1]?.trim();

test("HAProxy's frontend offers the agent port's TLS versions and suites, no more", () => {
  const suites = AGENT_TLS_POLICY.ciphers.split(":");
  assert.deepEqual(
    directive("ssl-default-bind-ciphersuites")?.split(":"),
    suites.filter((s) => s.startsWith("TLS_")),
  );
  assert.deepEqual(
    directive("ssl-default-bind-ciphers")?.split(":"),
    suites.filter((s) => !s.startsWith("TLS_")),
  );
  assert.equal(directive("ssl-default-bind-options"), `ssl-min-ver ${AGENT_TLS_POLICY.minVersion}`);
});
