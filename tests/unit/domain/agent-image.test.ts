import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentImageWarning, effectiveAgentImage } from "@/lib/domain/agent-image";
import { parseEnv } from "@/lib/env";
import { BUILD_AGENT_VERSION } from "@/lib/build-version";

describe("the agent image", () => {
  it("defaults to this build's agent version, and tags an untagged reference with it", () => {
    assert.equal(effectiveAgentImage(undefined, "1.4.0"), "fleet-registry/agent:1.4.0");
    assert.equal(effectiveAgentImage("registry.acme.io/fleet/agent", "1.4.0"), "registry.acme.io/fleet/agent:1.4.0");
    assert.equal(effectiveAgentImage("registry.acme.io:5000/fleet/agent", "1.4.0"), "registry.acme.io:5000/fleet/agent:1.4.0");
    assert.equal(effectiveAgentImage("registry.acme.io/fleet/agent:1.3.2", "1.4.0"), "registry.acme.io/fleet/agent:1.3.2");
    const pinned = `registry.acme.io/fleet/agent@sha256:${"a".repeat(64)}`;
    assert.equal(effectiveAgentImage(pinned, "1.4.0"), pinned);
  });

  it("warns, saying what to set, when unset or a placeholder nobody configured", () => {
    for (const configured of [
      undefined,
      "fleet-registry/agent:1.4.0",
      "docker.io/fleet-registry/agent",
      "registry.example.com/fleet/agent:1.4.0",
    ]) {
      const warning = agentImageWarning(configured, "1.4.0");
      assert.ok(warning, String(configured));
      assert.match(warning, /set AGENT_IMAGE to its reference, e\.g\. registry\.your-company\.com\/fleet\/agent:1\.4\.0/);
    }
    assert.match(agentImageWarning(undefined, "1.4.0")!, /^AGENT_IMAGE is not set/);
    assert.equal(agentImageWarning("registry.acme.io/fleet/agent:1.4.0", "1.4.0"), null);
  });

  it("reaches the configuration: the default manifest image is the build's agent version", () => {
    const e = parseEnv({ NODE_ENV: "test" });
    assert.equal(e.agentImage, `fleet-registry/agent:${BUILD_AGENT_VERSION}`);
    assert.ok(e.agentImageWarning);
    assert.equal(parseEnv({ NODE_ENV: "test", AGENT_IMAGE: "registry.acme.io/fleet/agent:1.4.0" }).agentImageWarning, null);
  });
});
