// What a container runtime would do with our Dockerfiles and Kubernetes manifests, done with
// files and processes (no container engine runs on these machines): parse a Dockerfile, perform
// its build stages in an empty folder holding only what its COPY lines bring, and compose a
// container's process from the image config and a Pod's container as Kubernetes does, with the
// image's paths mapped to the folders the build made.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export type Instruction = { op: string; value: string };
/** `platform`: FROM's --platform flag as written (e.g. `$BUILDPLATFORM`), else null. */
export type Stage = { base: string; name: string | null; platform: string | null; instructions: Instruction[] };

/**
 * The ENTRYPOINT of the base images we build on, from their image config (`docker inspect`):
 * an image inherits it unless its Dockerfile sets its own.
 */
export const BASE_ENTRYPOINTS: Record<string, string[]> = {
  "gcr.io/distroless/nodejs22-debian12:nonroot": ["/nodejs/bin/node"],
  "node:22-bookworm-slim": ["docker-entrypoint.sh"],
};

/** Stages in order; continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.replace(/\\\r?\n/g, " ").split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`cannot parse Dockerfile line: ${line}`);
    const op = match[1]!.toUpperCase();
    const value = match[2]!.trim();
    if (op === "FROM") {
      const words = value.split(/\s+/);
      const platform = words[0]?.startsWith("--platform=") ? words.shift()!.slice("--platform=".length) : null;
      const [base, as, name] = words;
      stages.push({ base: base!, name: as?.toUpperCase() === "AS" ? name! : null, platform, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${op} before FROM`);
      stage.instructions.push({ op, value });
    }
  }
  return stages;
}

/** A JSON-array (exec form) instruction value; the shell form is refused (distroless has no shell). */
function execForm(value: string, op: string): string[] {
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === "string")) throw new Error(`${op} must be exec form: ${value}`);
  return parsed;
}

/** COPY's flags (--from=, --chown=) and its sources and destination. */
function parseCopy(value: string): { from: string | null; sources: string[]; dest: string } {
  const words = value.split(/\s+/);
  let from: string | null = null;
  while (words[0]?.startsWith("--")) {
    const flag = words.shift()!;
    if (flag.startsWith("--from=")) from = flag.slice("--from=".length);
  }
  const dest = words.pop()!;
  return { from, sources: words, dest };
}

/** .dockerignore patterns as predicates on a context-relative path (leading component match, * wildcards). */
function ignoreMatcher(context: string): (rel: string) => boolean {
  const file = path.join(context, ".dockerignore");
  const patterns = fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#"))
    : [];
  const regexes = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/^\//, "")
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, "[^/]*")}(/|$)`,
      ),
  );
  return (rel) => regexes.some((re) => re.test(rel));
}

/** Context paths a COPY source names (a `*` glob matches within one folder; none matching is fine when globbed). */
function expandSource(context: string, source: string): string[] {
  const rel = source.replace(/^\.\/?/, "") || ".";
  if (!rel.includes("*")) return [rel];
  const dir = path.dirname(rel);
  const re = new RegExp(
    `^${path
      .basename(rel)
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")}$`,
  );
  return fs
    .readdirSync(path.join(context, dir))
    .filter((name) => re.test(name))
    .map((name) => path.join(dir, name));
}

function copyTree(from: string, to: string, skip: (rel: string) => boolean, rel: string) {
  if (skip(rel)) return;
  const stat = fs.lstatSync(from);
  if (stat.isSymbolicLink()) {
    // A link made by an earlier stage (node_modules, the build output) stays a link.
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.symlinkSync(fs.readlinkSync(from), to);
  } else if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) copyTree(path.join(from, name), path.join(to, name), skip, path.join(rel, name));
  } else {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
}

/** An install step the test replaces with a link to the checkout's node_modules (no registry here). */
function isInstall(command: string): boolean {
  return /^npm (ci|install)\b/.test(command.trim());
}

export interface ImageConfig {
  entrypoint: string[];
  cmd: string[];
  workdir: string;
  /** USER as written ("65532:65532"). */
  user: string | null;
  env: Record<string, string>;
}

export interface BuiltImage {
  /** The final stage's files, laid out under this folder as the image's root. */
  rootfs: string;
  config: ImageConfig;
  /** Everything the build commands printed. */
  log: string;
  /** Removes every stage's folder. */
  dispose(): void;
}

/** A container path (absolute, or relative to the working dir) inside `rootfs`. */
export function hostPath(rootfs: string, workdir: string, imagePath: string): string {
  return path.join(rootfs, path.posix.resolve(workdir, imagePath));
}

/**
 * Performs every stage of the Dockerfile in a new temp folder: COPY from the context (honouring
 * .dockerignore) or from an earlier stage, RUN through `sh -c` in the stage's working dir with
 * the stage's ARGs (`buildArgs` as --build-arg gives them) and ENV, an install step replaced by a
 * link to `context`'s node_modules. A RUN that fails throws with its
 * output, so a build needing a file no COPY brings fails here.
 */
/**
 * What to do instead of a RUN command (by its exact text), in the stage's working dir: steps that
 * install system packages or repeat a build the checkout already has.
 */
export type RunInstead = Record<string, (workdir: string) => void>;

export function buildImage(
  dockerfile: string,
  context: string,
  buildArgs: Record<string, string> = {},
  instead: RunInstead = {},
): BuiltImage {
  const root = fs.mkdtempSync(path.join(tmpdir(), "fleet-image-"));
  try {
    return build(dockerfile, context, root, buildArgs, instead);
  } catch (err) {
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
}

function build(
  dockerfile: string,
  context: string,
  root: string,
  buildArgs: Record<string, string>,
  instead: RunInstead,
): BuiltImage {
  const stages = parseDockerfile(fs.readFileSync(dockerfile, "utf8"));
  const ignored = ignoreMatcher(context);
  const rootfsOf = new Map<string, string>();
  let log = "";
  let final: BuiltImage | null = null;
  stages.forEach((stage, index) => {
    const rootfs = path.join(root, `stage-${index}`);
    fs.mkdirSync(rootfs, { recursive: true });
    if (stage.name) rootfsOf.set(stage.name, rootfs);
    // ARGs reach the stage's RUN commands as environment variables, not the image.
    const args: Record<string, string> = {};
    const config: ImageConfig = {
      entrypoint: BASE_ENTRYPOINTS[stage.base] ?? [],
      cmd: [],
      workdir: "/",
      user: null,
      env: {},
    };
    for (const instruction of stage.instructions) {
      const op = instruction.op;
      let value = instruction.value;
      const workdir = hostPath(rootfs, config.workdir, ".");
      if (op === "WORKDIR") {
        config.workdir = path.posix.resolve(config.workdir, value);
        fs.mkdirSync(hostPath(rootfs, config.workdir, "."), { recursive: true });
      } else if (op === "COPY") {
        const copy = parseCopy(value);
        const fromRoot = copy.from ? rootfsOf.get(copy.from) : null;
        if (copy.from && !fromRoot) throw new Error(`COPY --from=${copy.from}: no such stage`);
        const sources = fromRoot
          ? copy.sources.map((s) => path.join(fromRoot, s))
          : copy.sources.flatMap((s) => expandSource(context, s)).map((s) => path.join(context, s));
        const intoDir = copy.dest.endsWith("/") || sources.length > 1;
        for (const source of sources) {
          if (!fs.existsSync(source)) throw new Error(`COPY ${value}: ${source} does not exist`);
          const dest = hostPath(rootfs, config.workdir, copy.dest);
          const isDir = fs.statSync(source).isDirectory();
          const target = intoDir && !isDir ? path.join(dest, path.basename(source)) : dest;
          const rel = fromRoot ? "" : path.relative(context, source);
          copyTree(source, target, fromRoot ? () => false : (r) => r !== "." && ignored(r), rel || ".");
        }
      } else if (op === "RUN") {
        const replacement = instead[value];
        if (replacement) {
          replacement(workdir);
          continue;
        }
        if (isInstall(value)) {
          fs.symlinkSync(path.join(context, "node_modules"), path.join(workdir, "node_modules"));
          // The project's own install script still runs (it may generate files), unless told not to.
          if (value.includes("--ignore-scripts")) continue;
          value = "npm run postinstall --if-present";
        }
        // Never on this machine: it would change the host, not an image.
        if (/\b(apt-get|apk|chown|useradd)\b/.test(value)) throw new Error(`RUN ${value}: say what to do instead`);
        // The stage's ENV only, not this test's environment (a Docker build sees nothing else).
        const buildEnv: Record<string, string> = {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: root,
          ...args,
          ...config.env,
        };
        try {
          log += execFileSync("sh", ["-c", value], {
            cwd: workdir,
            env: buildEnv as NodeJS.ProcessEnv,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
          });
        } catch (err) {
          const e = err as { stdout?: string; stderr?: string; message: string };
          throw new Error(`RUN ${value} failed in the build of ${dockerfile}:\n${e.stdout ?? ""}${e.stderr ?? e.message}`);
        }
      } else if (op === "ENV") {
        for (const [, k, v] of value.matchAll(/(\w+)=("[^"]*"|\S+)/g)) config.env[k!] = v!.replace(/^"|"$/g, "");
      } else if (op === "ARG") {
        const [name, ...fallback] = value.split("=");
        args[name!] = buildArgs[name!] ?? fallback.join("=");
      } else if (op === "USER") {
        config.user = value;
      } else if (op === "ENTRYPOINT") {
        config.entrypoint = execForm(value, op);
        config.cmd = [];
      } else if (op === "CMD") {
        config.cmd = execForm(value, op);
      }
    }
    final = { rootfs, config, log, dispose: () => fs.rmSync(root, { recursive: true, force: true }) };
  });
  if (!final) throw new Error(`${dockerfile} has no stage`);
  return final;
}

/** The parts of a Pod spec that decide a container's process. */
export interface PodContainer {
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
  securityContext?: { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean };
}
export interface PodSecurity {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
}

export interface ContainerProcess {
  /** As the runtime would exec it, in image paths. */
  argv: string[];
  uid: number;
  gid: number;
  env: Record<string, string>;
  workdir: string;
}

/**
 * The container's process as Kubernetes and the OCI runtime compose it: `command` replaces the
 * image's ENTRYPOINT (and then the image's CMD is dropped), `args` replaces CMD; the user is the
 * container's, else the pod's runAsUser, else the image's USER, which must then be numeric when
 * runAsNonRoot is set (the kubelet refuses a name it cannot verify, and uid 0).
 */
export function composeProcess(config: ImageConfig, pod: PodSecurity, container: PodContainer): ContainerProcess {
  const argv = container.command
    ? [...container.command, ...(container.args ?? [])]
    : [...config.entrypoint, ...(container.args ?? config.cmd)];
  if (!argv.length) throw new Error("no command: neither the image nor the container names one");
  const [imageUser, imageGroup] = (config.user ?? "0").split(":");
  const uidSet = container.securityContext?.runAsUser ?? pod.runAsUser;
  const nonRoot = container.securityContext?.runAsNonRoot ?? pod.runAsNonRoot;
  if (uidSet === undefined && !/^\d+$/.test(imageUser!))
    throw new Error(
      `the image's user ${imageUser} is not numeric: the kubelet cannot verify runAsNonRoot (and this test cannot map it)`,
    );
  const uid = uidSet ?? Number(imageUser);
  if (nonRoot && uid === 0) throw new Error("runAsNonRoot and the container would run as root: the kubelet refuses it");
  const gid = container.securityContext?.runAsGroup ?? pod.runAsGroup ?? (imageGroup !== undefined ? Number(imageGroup) : 0);
  const env: Record<string, string> = { ...config.env };
  for (const e of container.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  return { argv, uid, gid, env, workdir: config.workdir };
}
