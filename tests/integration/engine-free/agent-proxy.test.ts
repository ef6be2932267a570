// HTTPS_PROXY / NO_PROXY for the agent's connections to the fleet: a CONNECT tunnel through a
// loopback proxy, the TLS session end to end inside it, and NO_PROXY bypassing it.
import assert from "node:assert/strict";
import https from "node:https";
import { after, before, describe, test } from "node:test";
import { configureProxy, EnvProxyAgent } from "@/lib/agent/http";
import { connectTunnel, proxyFor } from "@/lib/net/proxy-tunnel";
import { startConnectProxy, type ConnectProxy } from "../../helpers/connect-proxy";
import { FakeKubeApi, makeCa } from "../../helpers/fake-kube-api";
import { aksCluster } from "../../helpers/kube-clusters";

describe("egress proxy", () => {
  let target: FakeKubeApi;
  let proxy: ConnectProxy;
  let proxyPort = 0;
  let connects: string[] = [];
  const saved = { HTTPS_PROXY: process.env.HTTPS_PROXY, NO_PROXY: process.env.NO_PROXY };

  before(async () => {
    target = await new FakeKubeApi(aksCluster(), { tokens: ["t"] }).start();
    proxy = await startConnectProxy();
    proxyPort = proxy.port;
    connects = proxy.connects;
  });
  after(async () => {
    process.env.HTTPS_PROXY = saved.HTTPS_PROXY ?? "";
    process.env.NO_PROXY = saved.NO_PROXY ?? "";
    await target.stop();
    proxy.close();
  });

  function get(agent: https.Agent): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = https.request(`${target.url}/version`, { agent, headers: { authorization: "Bearer t" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end();
    });
  }

  test("NO_PROXY rules", () => {
    const env = { HTTPS_PROXY: "http://proxy.corp:3128", NO_PROXY: "localhost, .svc,example.com,10.0.0.1:443" };
    assert.equal(proxyFor("fleet.acme.io", env)?.host, "proxy.corp:3128");
    assert.equal(proxyFor("kubernetes.default.svc", env), null);
    assert.equal(proxyFor("api.example.com", env), null);
    assert.equal(proxyFor("example.com", env), null);
    assert.equal(proxyFor("notexample.com", env)?.hostname, "proxy.corp");
    assert.equal(proxyFor("10.0.0.1", env), null);
    assert.equal(proxyFor("fleet.acme.io", { https_proxy: "proxy:8080" })?.href, "http://proxy:8080/");
    assert.equal(proxyFor("fleet.acme.io", { HTTPS_PROXY: "http://p:1", NO_PROXY: "*" }), null);
    assert.equal(proxyFor("fleet.acme.io", {}), null);
  });

  test("HTTPS_PROXY: the request goes through a CONNECT tunnel, credentials as Proxy-Authorization; NO_PROXY bypasses it", async () => {
    process.env.HTTPS_PROXY = `http://agent:s%40cret@127.0.0.1:${proxyPort}`;
    process.env.NO_PROXY = "";
    const tunnelled = new EnvProxyAgent({ ca: target.caPem, keepAlive: false });
    assert.equal(await get(tunnelled), 200);
    assert.deepEqual(connects, [`127.0.0.1:${target.port} Basic ${Buffer.from("agent:s@cret").toString("base64")}`]);

    process.env.NO_PROXY = "127.0.0.1";
    assert.equal(await get(new EnvProxyAgent({ ca: target.caPem, keepAlive: false })), 200);
    assert.equal(connects.length, 1, "NO_PROXY: direct");

    // The server certificate is still verified inside the tunnel.
    process.env.NO_PROXY = "";
    await assert.rejects(get(new EnvProxyAgent({ keepAlive: false })), /self-signed|unable to verify|certificate/i);
  });

  test("an https:// proxy: TLS to the proxy checked against --proxy-ca-file, then the tunnel inside it", async () => {
    const pki = makeCa();
    const tlsProxy = await startConnectProxy({ tls: { keyPem: pki.serverKeyPem, certPem: pki.serverCertPem } });
    try {
      process.env.HTTPS_PROXY = tlsProxy.url;
      process.env.NO_PROXY = "";
      // The proxy's own CA is not a public root: without the bundle the handshake with the proxy fails.
      configureProxy({ caPem: undefined });
      await assert.rejects(
        get(new EnvProxyAgent({ ca: target.caPem, keepAlive: false })),
        /self-signed|unable to verify|certificate/i,
      );
      assert.equal(tlsProxy.connects.length, 0, "no CONNECT over an untrusted TLS connection");
      configureProxy({ caPem: pki.caPem });
      assert.equal(await get(new EnvProxyAgent({ ca: target.caPem, keepAlive: false })), 200);
      assert.deepEqual(tlsProxy.connects, [`127.0.0.1:${target.port}`]);
    } finally {
      configureProxy({ caPem: undefined });
      tlsProxy.close();
    }
  });

  test("a proxy that never answers CONNECT fails the tunnel after its deadline", async () => {
    const hanging = await startConnectProxy({ silent: true });
    try {
      await assert.rejects(
        connectTunnel(new URL(hanging.url), "127.0.0.1", target.port, { timeoutMs: 200 }),
        (err: NodeJS.ErrnoException) => {
          assert.equal(err.code, "ETIMEDOUT");
          assert.match(err.message, /opened no tunnel/);
          return true;
        },
      );
      assert.equal(hanging.connects.length, 1);
    } finally {
      hanging.close();
    }
  });

  test("a proxy on an IPv6 literal is reached at its address", async () => {
    const v6 = await startConnectProxy({ ipv6: true });
    try {
      const socket = await connectTunnel(new URL(v6.url), "127.0.0.1", target.port);
      socket.destroy();
      assert.deepEqual(v6.connects, [`127.0.0.1:${target.port}`]);
    } finally {
      v6.close();
    }
  });
});
