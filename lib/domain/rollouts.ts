import { z } from "zod";
import { checkSelectorText } from "./selector";
import { parseVersion } from "./semver";

// Staged agent upgrades: a canary of N clusters, then batches by percentage of the rest.

export const stageSpecSchema = z.union([
  z.object({ name: z.string().trim().min(1).max(40), clusters: z.number().int().min(1).max(100_000) }).strict(),
  z.object({ name: z.string().trim().min(1).max(40), percent: z.number().int().min(1).max(100) }).strict(),
]);
export type StageSpec = z.infer<typeof stageSpecSchema>;

export const createRolloutSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    targetVersion: z.string().refine((v) => parseVersion(v) !== null, "must be a semantic version"),
    selector: z.string().trim().superRefine(checkSelectorText).optional(),
    groupId: z.string().min(1).optional(),
    stages: z
      .array(stageSpecSchema)
      .min(1)
      .max(20)
      .default([
        { name: "canary", clusters: 1 },
        { name: "rest", percent: 100 },
      ]),
    maxUnavailable: z.number().int().min(1).max(10_000).default(1),
    waitSeconds: z.number().int().min(0).max(86_400).default(60),
    failureThreshold: z.number().int().min(1).max(10_000).default(1),
    /** how long one cluster may take to come back Ready on the target version */
    clusterTimeoutSeconds: z.number().int().min(10).max(86_400).default(600),
  })
  .strict()
  .refine((r) => !!r.selector !== !!r.groupId, { message: "name either a selector or a groupId", path: ["selector"] });
export type CreateRolloutInput = z.infer<typeof createRolloutSchema>;

/**
 * Assigns clusters (in the given, stable order) to stages: a `clusters` stage takes that many,
 * a `percent` stage takes that share of all clusters (rounded up, at least one), the last stage
 * takes whatever is left. Stages that would be empty are dropped.
 */
export function planStages(clusterIds: string[], stages: StageSpec[]): { name: string; clusterIds: string[] }[] {
  const plan: { name: string; clusterIds: string[] }[] = [];
  let next = 0;
  stages.forEach((s, i) => {
    const last = i === stages.length - 1;
    const want = last
      ? clusterIds.length - next
      : "clusters" in s
        ? s.clusters
        : Math.max(1, Math.ceil((s.percent / 100) * clusterIds.length));
    const ids = clusterIds.slice(next, next + want);
    next += ids.length;
    if (ids.length) plan.push({ name: s.name, clusterIds: ids });
  });
  return plan;
}

export type UpgradeWindow = { days: string[]; start: string; end: string };
export const upgradeWindowsSchema = z
  .array(
    z
      .object({
        days: z.array(z.enum(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])).min(1),
        start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
        end: z.string().regex(/^([01]\d|2[0-4]):[0-5]\d$/),
      })
      .strict(),
  )
  .max(20);

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Inside one of the (UTC) windows? No windows means always. */
export function inUpgradeWindow(windows: UpgradeWindow[] | null | undefined, now: Date): boolean {
  if (!windows || windows.length === 0) return true;
  const day = DAYS[now.getUTCDay()]!;
  const minutes = now.getUTCHours() * 60 + now.getUTCMinutes();
  const toMin = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  return windows.some((w) => w.days.includes(day as never) && minutes >= toMin(w.start) && minutes < toMin(w.end));
}
