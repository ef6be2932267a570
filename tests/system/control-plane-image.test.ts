// The control plane as deploy/kubernetes runs it: the files the Dockerfile copies (its build
// stage performed in an empty folder by tests/helpers/container-image.ts, the checkout's
// `npm run build` output standing for the image's), the Deployment's container composed with the
// image's ENTRYPOINT and CMD as Kubernetes does, run as the image's user on a read-only root with
// the Deployment's env and volumes, against the database TEST_ENGINE selects. It must pass the
// Deployment's own startup and readiness probes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import YAML from "yaml";
import { buildImage, composeProcess, hostPath, type PodContainer, type PodSecurity } from "../helpers/container-image";
import { freePort, TEST_KEK } from "../helpers/fleet-server";
import { createTestDatabase } from "../helpers/test-database";
import { until } from "../helpers/until";

const checkout = process.cwd();
const cleanup: (() => unknown)[] = [];
after(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** A folder as an emptyDir volume is: writable by the pod's user, whoever that is. */
function emptyDir(): string {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "fleet-volume-"));
  fs.chmodSync(dir, 0o777);
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function readOnly(dir: string) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) readOnly(p);
    else fs.chmodSync(p, 0o444);
  }
  fs.chmodSync(dir, 0o555);
}

test("deploy/kubernetes + Dockerfile: the composed command line starts the server from the files the image holds", async () => {
  assert.ok(fs.existsSync(path.join(checkout, ".next/BUILD_ID")), "needs the checkout's `npm run build`");
  const image = buildImage(
    "Dockerfile",
    checkout,
    {},
    {
      // The compilers for better-sqlite3: the linked node_modules has it built.
      "apt-get update && apt-get install -y --no-install-recommends build-essential python3 && rm -rf /var/lib/apt/lists/*":
        () => {},
      // The checkout's build stands for the image's (one build, not two); its cache is a volume below.
      "npm run build && npm prune --omit=dev": (workdir) => {
        fs.mkdirSync(path.join(workdir, ".next"));
        for (const name of fs.readdirSync(path.join(checkout, ".next")))
          if (name !== "cache") fs.symlinkSync(path.join(checkout, ".next", name), path.join(workdir, ".next", name));
      },
      // Both folders are emptyDir volumes in deploy/kubernetes, mounted over whatever the image has.
      "mkdir -p /app/data /app/.next/cache && chown 65532:65532 /app/data /app/.next/cache": () => {},
    },
  );
  cleanup.push(() => {
    fs.chmodSync(image.rootfs, 0o755);
    fs.chmodSync(path.join(image.rootfs, "app"), 0o755);
    image.dispose();
  });

  const manifest = YAML.parse(fs.readFileSync("deploy/kubernetes/deployment.yaml", "utf8"));
  const pod = manifest.spec.template.spec as {
    securityContext?: PodSecurity;
    containers: (PodContainer & {
      env: { name: string; value?: string; valueFrom?: { secretKeyRef: { key: string } } }[];
      volumeMounts: { name: string; mountPath: string }[];
    })[];
  };
  const container = pod.containers[0]!;
  const proc = composeProcess(image.config, pod.securityContext ?? {}, container);
  assert.equal(proc.uid, 65532, "the image's USER: the pod pins none");

  // The volumes: each mount path in the image's root is a link to an emptyDir (/tmp is this machine's).
  const app = hostPath(image.rootfs, "/", "/app");
  for (const mount of container.volumeMounts) {
    if (mount.mountPath === "/tmp") continue;
    const at = hostPath(image.rootfs, "/", mount.mountPath);
    fs.rmSync(at, { recursive: true, force: true });
    fs.symlinkSync(emptyDir(), at);
  }
  // The manifest's readOnlyRootFilesystem; mkdtemp's 0700 would keep the image's user out of it.
  readOnly(app);
  fs.chmodSync(path.dirname(image.rootfs), 0o755);

  // docker-entrypoint.sh (node images' ENTRYPOINT) runs its arguments when the first is a command.
  assert.deepEqual(proc.argv.slice(0, 2), ["docker-entrypoint.sh", "node"], "the image's command, not overridden");
  const [, , ...nodeArgs] = proc.argv;
  assert.ok(!nodeArgs.some((a) => a.startsWith("/")), "paths relative to the image's working dir");

  const db = await createTestDatabase();
  cleanup.push(() => db.drop());
  if (db.engine === "sqlite") fs.chmodSync(path.dirname(db.url.replace(/^file:/, "").split("?")[0]!), 0o777);
  const secrets: Record<string, string> = {
    DATABASE_URL: db.url,
    FLEET_CA_KEK: TEST_KEK,
    AUTH_SECRET: crypto.randomBytes(32).toString("base64url"),
    METRICS_TOKEN: crypto.randomBytes(24).toString("base64url"),
    ADMIN_EMAIL: "admin@example.com",
    ADMIN_PASSWORD: "correct-horse-battery",
  };
  const [consolePort, agentPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = { ...proc.env };
  for (const e of container.env) {
    const value = e.value ?? secrets[e.valueFrom!.secretKeyRef.key];
    if (value !== undefined) env[e.name] = value;
  }
  // The pod's own network namespace and paths, mapped onto this machine's loopback and the image's root.
  Object.assign(env, {
    HOST: "127.0.0.1",
    PORT: String(consolePort),
    AGENT_PORT: String(agentPort),
    DATA_DIR: hostPath(image.rootfs, "/", env.DATA_DIR!),
  });
  const child = spawn(process.execPath, nodeArgs, {
    cwd: hostPath(image.rootfs, proc.workdir, "."),
    uid: proc.uid,
    gid: proc.gid,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  cleanup.push(async () => {
    child.kill("SIGTERM");
    await exited;
  });

  const probe = (kind: "startupProbe" | "readinessProbe") =>
    (container as unknown as Record<string, { httpGet: { path: string } }>)[kind]!.httpGet.path;
  await until(
    "the startup and readiness probes pass",
    async () => {
      if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}:\n${output}`);
      const ok = async (p: string) => (await fetch(`http://127.0.0.1:${consolePort}${p}`).catch(() => null))?.status === 200;
      return (await ok(probe("startupProbe"))) && (await ok(probe("readinessProbe")));
    },
    120_000,
    () => output,
  );
});
