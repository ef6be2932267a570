// Memory and CPU of a process and everything it started, read from /proc (Linux), for the
// benchmarks: the server may fork worker processes (and an HAProxy may sit in front), and what
// the fleet costs is all of them together. RSS is summed per process, so pages two processes
// share are counted twice: an upper bound of what they hold together.
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux this runs on

export interface ProcessSample {
  pid: number;
  /** Process start time in clock ticks since boot: with the pid, one process even if pids are reused. */
  startTicks: number;
  /** A short name: the executable and the script or config it runs. */
  name: string;
  rssMb: number;
  /** CPU seconds (user + system) used so far. */
  cpuSeconds: number;
}

/** The fields of /proc/<pid>/stat after the command (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

function label(pid: number): string {
  try {
    const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    // The last argument that names a file: server.mjs, a worker entry, haproxy's config.
    const file = [...args].reverse().find((a) => /\.(m?[jt]s|cfg|conf)$/.test(a));
    return file ? `${comm} ${file.split("/").pop()}` : comm;
  } catch {
    return "?";
  }
}

/** One process now; null when it is gone. */
export function sampleProcess(pid: number): ProcessSample | null {
  const fields = statFields(pid);
  if (!fields) return null;
  let rssKb = NaN;
  try {
    rssKb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  } catch {
    return null;
  }
  return {
    pid,
    // Fields counted from state (field 3 of stat(5)): utime 14, stime 15, starttime 22.
    startTicks: Number(fields[19]),
    name: label(pid),
    rssMb: rssKb / 1024,
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
  };
}

/** `root` and its descendants, from a parent-of map (pure, for the test). */
export function descendants(root: number, parentOf: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parentOf) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    if (out.includes(pid)) continue;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Every running process's parent, from /proc/<pid>/stat. */
function parentMap(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields) parents.set(Number(entry), Number(fields[1]));
  }
  return parents;
}

/**
 * The processes of `roots()` (each with its whole tree, read afresh every sample: a restarted
 * server has a new pid, a forked worker appears) plus `extra` pids (each alone: an HAProxy in
 * front is not the server's child). CPU is measured per process between laps, so a process that
 * appeared meanwhile counts from its start and one that ended counts up to its last sample.
 */
export class ProcessGroup {
  private lastCpu = new Map<string, number>();
  private lapStart = performance.now();

  constructor(
    private readonly roots: () => (number | undefined)[],
    private readonly extra: number[] = [],
  ) {
    for (const p of this.sample()) this.lastCpu.set(key(p), p.cpuSeconds);
  }

  /** Every process of the group now. */
  sample(): ProcessSample[] {
    const parents = parentMap();
    const pids = new Set<number>();
    for (const root of this.roots()) if (root) for (const pid of descendants(root, parents)) pids.add(pid);
    for (const pid of this.extra) pids.add(pid);
    return [...pids].map(sampleProcess).filter((p): p is ProcessSample => p !== null);
  }

  /** Percent of one core the whole group used since construction or the last lap. */
  lapCpu(): number {
    let used = 0;
    const now = new Map<string, number>();
    for (const p of this.sample()) {
      now.set(key(p), p.cpuSeconds);
      used += p.cpuSeconds - (this.lastCpu.get(key(p)) ?? 0);
    }
    // Processes gone since the last lap keep nothing to add: their last reading is all we know.
    const t = performance.now();
    const pct = (used / ((t - this.lapStart) / 1000)) * 100;
    this.lastCpu = new Map([...this.lastCpu, ...now]);
    this.lapStart = t;
    return pct;
  }
}

const key = (p: ProcessSample) => `${p.pid}@${p.startTicks}`;

/** Total and per-process RSS maxima over a run's samples. */
export class RssPeaks {
  private readonly peaks = new Map<string, { name: string; pid: number; mb: number }>();
  maxTotalMb = 0;

  add(samples: ProcessSample[]): number {
    const total = samples.reduce((sum, p) => sum + p.rssMb, 0);
    this.maxTotalMb = Math.max(this.maxTotalMb, total);
    for (const p of samples) {
      const k = key(p);
      const peak = this.peaks.get(k);
      if (!peak || p.rssMb > peak.mb) this.peaks.set(k, { name: p.name, pid: p.pid, mb: p.rssMb });
    }
    return total;
  }

  /** "pid 123 node server.mjs 420 MB, ..." largest first. */
  describe(): string {
    return (
      [...this.peaks.values()]
        .sort((a, b) => b.mb - a.mb)
        .map((p) => `pid ${p.pid} ${p.name} ${p.mb.toFixed(0)} MB`)
        .join(", ") || "none"
    );
  }
}

/** Total and per-process RSS now, as one line. */
export function describeRss(samples: ProcessSample[]): string {
  const total = samples.reduce((sum, p) => sum + p.rssMb, 0);
  const each = samples.map((p) => `${p.pid} ${p.rssMb.toFixed(0)}`).join(" + ");
  return samples.length > 1 ? `${total.toFixed(0)} MB (${each})` : `${total.toFixed(0)} MB`;
}
