import {
  createRolloutSchema,
  planStages,
  SOAK_DEFAULT_SECONDS,
  type CreateRolloutInput,
  type StageSpec,
} from "@/lib/domain/rollouts";

// The rollout form's state as typed (strings), turned into the API's input and checked with the
// same schema the server uses. Pure, no React.

export type StageDraft = { id: string; name: string; kind: "clusters" | "percent"; value: string };

export type RolloutDraft = {
  name: string;
  targetVersion: string;
  target: "group" | "selector" | "clusters";
  groupId: string;
  selector: string;
  /** explicit clusters, from a link such as /rollouts/new?clusters=id1,id2 */
  clusterIds: string[];
  /** the team (id) the rollout belongs to; "" for the fleet's, or a caller's only team */
  team: string;
  includeUnready: boolean;
  requireApproval: boolean;
  stages: StageDraft[];
  maxUnavailable: string;
  waitSeconds: string;
  failureThreshold: string;
  clusterTimeoutSeconds: string;
};

let nextId = 0;
export function stageDraft(name: string, kind: StageDraft["kind"], value: number): StageDraft {
  nextId += 1;
  return { id: `stage-${nextId}`, name, kind, value: String(value) };
}

export const STAGE_PRESETS: { label: string; stages: () => StageDraft[] }[] = [
  { label: "Canary, then all", stages: () => [stageDraft("canary", "clusters", 1), stageDraft("rest", "percent", 100)] },
  {
    label: "Canary, 25 %, 50 %, rest",
    stages: () => [
      stageDraft("canary", "clusters", 1),
      stageDraft("batch-1", "percent", 25),
      stageDraft("batch-2", "percent", 50),
      stageDraft("rest", "percent", 100),
    ],
  },
  { label: "All at once", stages: () => [stageDraft("all", "percent", 100)] },
];

/** `?clusters=id1,id2` as a list of ids (empty: none named). */
export function clustersParam(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return [
    ...new Set(
      text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

export function initialDraft(targetVersion: string, clusterIds: string[] = []): RolloutDraft {
  return {
    name: "",
    targetVersion,
    target: clusterIds.length ? "clusters" : "group",
    groupId: "",
    selector: "",
    clusterIds,
    team: "",
    includeUnready: false,
    requireApproval: false,
    stages: STAGE_PRESETS[0]!.stages(),
    maxUnavailable: "1",
    waitSeconds: String(SOAK_DEFAULT_SECONDS),
    failureThreshold: "1",
    clusterTimeoutSeconds: "600",
  };
}

const num = (s: string) => (s.trim() === "" ? Number.NaN : Number(s));

export function stageSpec(s: StageDraft): StageSpec {
  return s.kind === "clusters" ? { name: s.name.trim(), clusters: num(s.value) } : { name: s.name.trim(), percent: num(s.value) };
}

export function draftToInput(d: RolloutDraft): unknown {
  return {
    name: d.name.trim(),
    targetVersion: d.targetVersion.trim(),
    ...(d.target === "group"
      ? { groupId: d.groupId || undefined }
      : d.target === "clusters"
        ? { clusterIds: d.clusterIds }
        : { selector: d.selector.trim() || undefined }),
    ...(d.team ? { team: d.team } : {}),
    includeUnready: d.includeUnready,
    requireApproval: d.requireApproval,
    stages: d.stages.map(stageSpec),
    maxUnavailable: num(d.maxUnavailable),
    waitSeconds: num(d.waitSeconds),
    failureThreshold: num(d.failureThreshold),
    clusterTimeoutSeconds: num(d.clusterTimeoutSeconds),
  };
}

export type DraftErrors = Record<string, string>;

/** The API input, or the problems keyed by field path ("name", "stages.1.percent", "selector"). */
export function checkDraft(d: RolloutDraft): { ok: true; input: CreateRolloutInput } | { ok: false; errors: DraftErrors } {
  const parsed = createRolloutSchema.safeParse(draftToInput(d));
  if (parsed.success) return { ok: true, input: parsed.data };
  const errors: DraftErrors = {};
  for (const issue of parsed.error.issues) {
    let key = issue.path.join(".");
    // A stage that fails both union branches reports at the stage itself: point at its number.
    if (/^stages\.\d+$/.test(key)) key = `${key}.value`;
    if (/^stages\.\d+\.(clusters|percent)$/.test(key)) key = key.replace(/(clusters|percent)$/, "value");
    if (key === "selector" && d.target === "group") key = "groupId";
    errors[key] ??= issue.message === "Invalid input" ? "check this value" : issue.message;
  }
  return { ok: false, errors };
}

/** How many clusters each stage would get out of `count` (the server's own planner); null while a stage is invalid. */
export function previewStages(stages: StageDraft[], count: number): { id: string; name: string; size: number | null }[] {
  const specs = stages.map(stageSpec);
  const valid = specs.every((spec) => {
    const v = "clusters" in spec ? spec.clusters : spec.percent;
    return spec.name && Number.isInteger(v) && v >= 1 && ("clusters" in spec || v <= 100);
  });
  if (!valid) return stages.map((s) => ({ id: s.id, name: s.name, size: null }));
  const plan = planStages(
    Array.from({ length: count }, (_, i) => String(i)),
    specs,
  );
  // Every stage before the clusters run out gets at least one, so the stages planStages drops
  // (empty ones) are always the last: plan[i] is stage i's share.
  return stages.map((s, i) => ({ id: s.id, name: s.name, size: plan[i]?.clusterIds.length ?? 0 }));
}
