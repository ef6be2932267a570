// The agent's Kubernetes client against the loopback API: a rotated cluster CA, a kubeconfig's
// proxy-url, a reused connection the server reset, and KUBECONFIG naming several files.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { stringify } from "yaml";
import { ConfigError } from "@/lib/agent/errors";
import { KubeClient } from "@/lib/agent/kube/kube-client";
import { startConnectProxy, type ConnectProxy } from "../../helpers/connect-proxy";
import { FakeKubeApi } from "../../helpers/fake-kube-api";
import { aksCluster } from "../../helpers/kube-clusters";

const dir = mkdtempSync(path.join(tmpdir(), "kube-client-"));
let api: FakeKubeApi;
let proxy: ConnectProxy;
const clients: KubeClient[] = [];

before(async () => {
  api = await new FakeKubeApi(aksCluster(), { tokens: ["t"] }).start();
  proxy = await startConnectProxy();
});
after(async () => {
  for (const c of clients) c.close();
  await api.stop();
  proxy.close();
});

type Entry = { name: string; [key: string]: unknown };
/** A kubeconfig file as kubectl writes one; returns its path. */
function kubeconfig(file: string, o: { clusters?: Entry[]; users?: Entry[]; contexts?: Entry[]; current?: string }): string {
  const full = path.join(dir, file);
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: o.clusters ?? [],
    users: o.users ?? [],
    contexts: o.contexts ?? [],
    ...(o.current ? { "current-context": o.current } : {}),
  };
  writeFileSync(full, stringify(doc));
  return full;
}

function load(file: string): KubeClient {
  const client = KubeClient.load({ kubeconfig: file, timeoutMs: 5_000 });
  clients.push(client);
  return client;
}

const context = (name: string, cluster: string, user = "admin") => ({ name, context: { cluster, user } });
const admin = { name: "admin", user: { token: "t" } };

describe("KubeClient", () => {
  test("a rotated cluster CA (the file rewritten) is trusted on the next connection", async () => {
    const caFile = path.join(dir, "ca.crt");
    writeFileSync(caFile, api.caPem);
    const client = load(
      kubeconfig("rotating", {
        clusters: [{ name: "aks", cluster: { server: api.url, "certificate-authority": caFile } }],
        users: [admin],
        contexts: [context("aks", "aks")],
        current: "aks",
      }),
    );
    assert.equal((await client.request("version", "/version")).status, 200);
    writeFileSync(caFile, api.rotateCa());
    api.dropConnections();
    assert.equal((await client.request("version", "/version")).status, 200, "the new CA verifies the new certificate");
  });

  test("a kubeconfig's proxy-url: the connection tunnels through it; a SOCKS proxy is refused at start", async () => {
    const client = load(
      kubeconfig("proxied", {
        clusters: [
          {
            name: "aks",
            cluster: {
              server: api.url,
              "certificate-authority-data": Buffer.from(api.caPem).toString("base64"),
              "proxy-url": proxy.url,
            },
          },
        ],
        users: [admin],
        contexts: [context("aks", "aks")],
        current: "aks",
      }),
    );
    assert.equal((await client.request("version", "/version")).status, 200);
    assert.deepEqual(proxy.connects, [`127.0.0.1:${api.port}`]);
    const socks = kubeconfig("socks", {
      clusters: [{ name: "aks", cluster: { server: api.url, "proxy-url": "socks5://user:secret@127.0.0.1:1080" } }],
      users: [admin],
      contexts: [context("aks", "aks")],
      current: "aks",
    });
    assert.throws(
      () => load(socks),
      (err: unknown) =>
        err instanceof ConfigError &&
        /only http:\/\/ and https:\/\/ proxies/.test(err.message) &&
        !err.message.includes("secret"),
    );
  });

  test("a read on a reused connection the server reset is sent again once; a write is not", async () => {
    const client = load(
      kubeconfig("reset", {
        clusters: [
          { name: "aks", cluster: { server: api.url, "certificate-authority-data": Buffer.from(api.caPem).toString("base64") } },
        ],
        users: [admin],
        contexts: [context("aks", "aks")],
        current: "aks",
      }),
    );
    assert.equal((await client.request("version", "/version")).status, 200);
    api.resetReusedSockets = 1;
    assert.equal((await client.request("version", "/version")).status, 200);
    assert.equal(api.resetReusedSockets, 0, "the reset happened, and the read went through after it");
    api.resetReusedSockets = 1;
    await assert.rejects(
      client.request("patchDeployment", "/apis/apps/v1/namespaces/fleet-system/deployments/fleet-agent", {
        contentType: "application/merge-patch+json",
        body: { spec: { replicas: 1 } },
      }),
      /socket hang up|ECONNRESET/,
    );
  });

  test("KUBECONFIG with several files: missing ones skipped, the first to name a cluster, user or context wins it, the first current-context", async () => {
    const ca = Buffer.from(api.caPem).toString("base64");
    const first = kubeconfig("first", {
      clusters: [{ name: "aks", cluster: { server: api.url, "certificate-authority-data": ca } }],
      users: [admin],
      contexts: [context("work", "aks")],
    });
    const second = kubeconfig("second", {
      clusters: [
        { name: "aks", cluster: { server: "https://127.0.0.1:9", "certificate-authority-data": ca } },
        { name: "other", cluster: { server: "https://127.0.0.1:10" } },
      ],
      users: [{ name: "admin", user: { token: "wrong" } }],
      contexts: [context("work", "other")],
      current: "work",
    });
    const third = kubeconfig("third", { current: "elsewhere" });
    const client = load([path.join(dir, "missing"), first, second, third].join(path.delimiter));
    assert.equal(client.server, api.url);
    assert.equal((await client.request("version", "/version")).status, 200, "the first file's user and token");
  });
});
