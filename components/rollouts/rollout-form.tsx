"use client";

import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent } from "react";
import { selectorProblem } from "@/lib/domain/selector";
import { SelectorInput } from "@/components/labels/selector-input";
import { useGroups } from "@/lib/client/groups";
import { useCreateRollout, useMatchCount, usePlanPreview, usePlanRollout, type RolloutPlan } from "@/lib/client/rollouts";
import type { CreateRolloutInput } from "@/lib/domain/rollouts";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, inputClass } from "@/components/ui/field";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";
import { InlineError } from "@/components/ui/inline-error";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TeamField } from "@/components/teams/team-field";
import { checkDraft, initialDraft, previewStages, type DraftErrors, type RolloutDraft } from "./rollout-draft";
import { PlanOutcome } from "./plan-outcome";
import { StagePlanBar } from "./stage-plan-bar";
import { StagesBuilder } from "./stages-builder";

/** A team the caller may start rollouts for (they operate in it). */
export type RolloutTeamChoice = { id: string; name: string };

const SELECTOR_DEBOUNCE_MS = 300;
// The server plans the draft once typing pauses: long enough to skip half-typed numbers.
const PLAN_PREVIEW_DEBOUNCE_MS = 400;

/**
 * The draft as a plan request, or null while it is incomplete (a name is not needed to plan; the
 * team is, for someone who operates in several teams and has no fleet role to plan with).
 */
function planPreviewInput(draft: RolloutDraft, teamNeeded: boolean): CreateRolloutInput | null {
  if (teamNeeded && !draft.team) return null;
  const checked = checkDraft({ ...draft, name: draft.name.trim() || "plan preview" });
  return checked.ok ? checked.input : null;
}

function TargetPicker({
  draft,
  set,
  errors,
  matched,
  canListGroups,
}: {
  draft: RolloutDraft;
  set: (patch: Partial<RolloutDraft>) => void;
  errors: DraftErrors;
  matched: { count: number | null; pending: boolean; error: string | null; leftOut?: { team: string; count: number } };
  /** groups are the fleet's: someone with team roles only picks by selector or explicit clusters */
  canListGroups: boolean;
}) {
  const groups = useGroups({ enabled: canListGroups });
  const problem = selectorProblem(draft.selector);
  const targets = [
    ...(draft.clusterIds.length ? (["clusters"] as const) : []),
    ...(canListGroups ? (["group"] as const) : []),
    "selector" as const,
  ];
  return (
    <div className="space-y-4">
      <fieldset>
        <legend className="sr-only">Choose clusters by</legend>
        <div role="radiogroup" className="inline-flex rounded-md border border-slate-300 p-0.5 dark:border-slate-700">
          {targets.map((t) => (
            <label
              key={t}
              className={`cursor-pointer rounded px-3 py-1.5 text-sm font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-500 ${
                draft.target === t
                  ? "bg-sky-700 text-white"
                  : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
              }`}
            >
              <input
                type="radio"
                name="rollout-target"
                value={t}
                checked={draft.target === t}
                onChange={() => set({ target: t })}
                className="sr-only"
              />
              {t === "group"
                ? "By cluster group"
                : t === "selector"
                  ? "By label selector"
                  : `These ${draft.clusterIds.length} cluster${draft.clusterIds.length === 1 ? "" : "s"}`}
            </label>
          ))}
        </div>
      </fieldset>
      {draft.target === "clusters" ? (
        <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="prefilled-clusters">
          The {draft.clusterIds.length.toLocaleString("en-US")} cluster{draft.clusterIds.length === 1 ? "" : "s"} you chose. The
          upgrade windows of every group they are in apply.
        </p>
      ) : draft.target === "group" ? (
        <div className="space-y-1.5">
          <label htmlFor="rollout-group" className="block text-sm font-medium">
            Group
          </label>
          <select
            id="rollout-group"
            className={inputClass}
            value={draft.groupId}
            aria-invalid={errors.groupId ? true : undefined}
            onChange={(e) => set({ groupId: e.target.value })}
          >
            <option value="">{groups.isPending ? "Loading groups…" : "Choose a group"}</option>
            {groups.data?.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} —{" "}
                {g.counts
                  ? `${g.counts.total.toLocaleString("en-US")} cluster${g.counts.total === 1 ? "" : "s"}`
                  : "invalid selector"}
              </option>
            ))}
          </select>
          {errors.groupId ? (
            <p className="text-xs text-rose-600 dark:text-rose-400">Choose a group.</p>
          ) : groups.data?.length === 0 ? (
            <p className="text-xs text-slate-500 dark:text-slate-400">No groups yet: use a label selector instead.</p>
          ) : (
            <p className="text-xs text-slate-500 dark:text-slate-400">
              The group&apos;s upgrade windows and max unavailable apply as well.
            </p>
          )}
        </div>
      ) : (
        <Field
          id="rollout-selector"
          label="Label selector"
          placeholder="env=staging,region in (eu-west-1,eu-central-1)"
          className={`${inputClass} font-mono`}
          value={draft.selector}
          onChange={(e) => set({ selector: e.target.value })}
          renderInput={(p) => <SelectorInput {...p} value={draft.selector} onValueChange={(selector) => set({ selector })} />}
          error={problem ?? (errors.selector ? "Name a selector that matches some clusters." : null)}
          hint="kubectl syntax: key=value, key in (a,b), !key."
        />
      )}
      <p className="text-sm" aria-live="polite" data-testid="matched-clusters">
        {matched.error ? (
          <span className="text-rose-700 dark:text-rose-400">{matched.error}</span>
        ) : matched.count === null ? (
          <span className="text-slate-500 dark:text-slate-400">Choose clusters to see the plan.</span>
        ) : (
          <>
            <span className="font-semibold tabular-nums">{matched.count.toLocaleString("en-US")}</span> cluster
            {matched.count === 1 ? "" : "s"} match{matched.count === 1 ? "es" : ""} now
            {matched.leftOut && (
              <span data-testid="matched-left-out">
                {" "}
                in team {matched.leftOut.team}&apos;s scope
                {matched.leftOut.count > 0 && ` (${matched.leftOut.count.toLocaleString("en-US")} more outside it, left out)`}
              </span>
            )}
            {matched.pending && <span className="text-slate-500 dark:text-slate-400"> · updating…</span>}
          </>
        )}
      </p>
    </div>
  );
}

/** A new staged agent upgrade: what version, which clusters, in which stages, how carefully. */
export function RolloutForm({
  recommended,
  knownVersions,
  clusterIds = [],
  initial,
  teams = [],
  canListGroups = true,
}: {
  recommended: string;
  knownVersions: string[];
  /**
   * For someone planning through their teams (no fleet operator role): the teams they operate in.
   * One: the rollout is that team's; several: they choose. Empty: the fleet's rollout.
   */
  teams?: RolloutTeamChoice[];
  canListGroups?: boolean;
  /** prefilled explicit clusters (/rollouts/new?clusters=id1,id2, ?matching=<list filter>, ?flagged=) */
  clusterIds?: string[];
  /** a selector or group prefill from the cluster list's "Create a rollout" (?selector= or ?group=) */
  initial?: Partial<RolloutDraft>;
}) {
  const router = useRouter();
  const create = useCreateRollout();
  const plan = usePlanRollout();
  const groups = useGroups({ enabled: canListGroups });
  const [draft, setDraft] = useState<RolloutDraft>(() => {
    const start = {
      ...initialDraft(recommended, clusterIds),
      ...(clusterIds.length ? {} : initial),
      ...(teams.length === 1 ? { team: teams[0]!.id } : {}),
    };
    // Without the groups to choose from, a group prefill cannot be shown: pick by selector.
    return !canListGroups && start.target === "group" ? { ...start, target: "selector", groupId: "" } : start;
  });
  const teamNeeded = teams.length > 1;
  const [confirming, setConfirming] = useState<{ input: CreateRolloutInput; plan: RolloutPlan } | null>(null);
  const [errors, setErrors] = useState<DraftErrors>({});
  const set = (patch: Partial<RolloutDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const settledSelector = useDebouncedValue(draft.selector.trim(), SELECTOR_DEBOUNCE_MS);
  const selectorForCount =
    draft.target === "selector" && settledSelector && !selectorProblem(settledSelector) ? settledSelector : null;
  const selectorCount = useMatchCount(selectorForCount);
  const group = groups.data?.find((g) => g.id === draft.groupId);
  const matched =
    draft.target === "clusters"
      ? { count: draft.clusterIds.length, pending: false, error: null }
      : draft.target === "group"
        ? group?.selectorError
          ? {
              count: null,
              pending: false,
              error: `This group's selector is invalid: ${group.selectorError}. Fix it on the Groups page.`,
            }
          : { count: group?.counts ? group.counts.total : null, pending: false, error: null }
        : {
            count: selectorForCount ? (selectorCount.data ?? null) : null,
            pending: selectorCount.isFetching,
            error: selectorCount.error?.message ?? null,
          };
  // The server's plan of the draft: what the confirmation will show, counted by the same function.
  const settledDraft = useDebouncedValue(draft, PLAN_PREVIEW_DEBOUNCE_MS);
  const previewInput = useMemo(() => planPreviewInput(settledDraft, teamNeeded), [settledDraft, teamNeeded]);
  const planPreview = usePlanPreview(previewInput);
  const previewed = previewInput && !planPreview.isError ? planPreview.data : undefined;
  const planned = previewed?.plan;
  // Until the plan of what is on screen arrives, the last one is shown dimmed and marked busy.
  const planStale = planPreview.isPlaceholderData || planPreview.isFetching || settledDraft !== draft;
  const local = previewStages(draft.stages, matched.count ?? 0);
  // Stage sizes from the server's plan once it is the current draft's (it leaves NotReady clusters out).
  const preview =
    planned && !planPreview.isPlaceholderData && settledDraft === draft
      ? local.map((s, i) => ({ ...s, size: s.size === null ? null : (planned.stages[i]?.clusters ?? 0) }))
      : local;
  const previewTotal = preview === local ? (matched.count ?? 0) : (planned?.planned ?? 0);
  // Through a team, the server's plan says what is in the team's scope and what it leaves out:
  // the count shown is the plan's once it is the current draft's.
  const scoped = planned?.scope && !planPreview.isPlaceholderData && settledDraft === draft ? planned : undefined;
  const matchedShown = scoped?.scope
    ? { ...matched, count: scoped.clusters, leftOut: { team: scoped.scope.team, count: scoped.scope.leftOut } }
    : matched;

  function submit(e: FormEvent) {
    e.preventDefault();
    const checked = checkDraft(draft);
    if (!checked.ok || (teamNeeded && !draft.team)) {
      setErrors({
        ...(checked.ok ? {} : checked.errors),
        ...(teamNeeded && !draft.team ? { team: "Choose the team the rollout belongs to." } : {}),
      });
      return;
    }
    setErrors({});
    // The server plans it now (who is skipped, how stages split) and the operator confirms those numbers.
    plan.mutate(checked.input, { onSuccess: (p) => setConfirming({ input: checked.input, plan: p }) });
  }

  function start() {
    if (!confirming) return;
    create.mutate(confirming.input, { onSuccess: (r) => router.push(`/rollouts/${encodeURIComponent(r.id)}`) });
  }

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="space-y-6">
        <Card title="Upgrade">
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            <Field
              id="rollout-name"
              label="Rollout name"
              placeholder="agent 1.5.0 to staging"
              value={draft.name}
              maxLength={100}
              autoFocus
              onChange={(e) => set({ name: e.target.value })}
              error={errors.name}
            />
            <div className="space-y-1.5">
              <Field
                id="rollout-version"
                label="Target agent version"
                list="rollout-known-versions"
                className={`${inputClass} font-mono`}
                value={draft.targetVersion}
                onChange={(e) => set({ targetVersion: e.target.value })}
                error={errors.targetVersion}
                hint={
                  recommended && draft.targetVersion.trim() !== recommended ? (
                    <button
                      type="button"
                      onClick={() => set({ targetVersion: recommended })}
                      className="font-medium text-sky-700 underline dark:text-sky-400"
                    >
                      Use the recommended {recommended}
                    </button>
                  ) : recommended ? (
                    "The recommended version from the compatibility matrix."
                  ) : undefined
                }
              />
              <datalist id="rollout-known-versions">
                {[recommended, ...knownVersions].filter(Boolean).map((v) => (
                  <option key={v} value={v} />
                ))}
              </datalist>
            </div>
          </div>
        </Card>

        <Card title="Clusters">
          <div className="space-y-4">
            {/* Planning through teams: the choice when they operate in several, a note when in one. */}
            <TeamField
              id="rollout-team"
              label="Team"
              teams={teams.map((t) => ({ value: t.id, label: t.name }))}
              placeholder="Choose a team"
              note={
                teams[0] && (
                  <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="rollout-team-note">
                    A rollout of team {teams[0].name}: it upgrades only clusters in the team&apos;s scope.
                  </p>
                )
              }
              value={draft.team}
              onChange={(team) => set({ team })}
              hint={errors.team ? undefined : "The rollout belongs to this team and upgrades only clusters in its scope."}
              error={errors.team}
            />
            <TargetPicker draft={draft} set={set} errors={errors} matched={matchedShown} canListGroups={canListGroups} />
          </div>
        </Card>

        <Card title="Stages">
          <StagesBuilder
            stages={draft.stages}
            sizes={preview.map((p) => (matched.count === null ? null : p.size))}
            errors={errors}
            onChange={(stages) => set({ stages })}
          />
        </Card>

        <Card title="Safety">
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            <Field
              id="rollout-max-unavailable"
              label="Max unavailable"
              type="number"
              min={1}
              value={draft.maxUnavailable}
              onChange={(e) => set({ maxUnavailable: e.target.value })}
              hint="Clusters upgrading at the same time."
              error={errors.maxUnavailable}
            />
            <Field
              id="rollout-wait"
              label="Soak time per stage (seconds)"
              type="number"
              min={0}
              value={draft.waitSeconds}
              onChange={(e) => set({ waitSeconds: e.target.value })}
              hint="Each upgraded cluster must stay Ready on the new version this long before the next stage; one that turns NotReady pauses the rollout."
              error={errors.waitSeconds}
            />
            <Field
              id="rollout-failure-threshold"
              label="Failure threshold"
              type="number"
              min={1}
              value={draft.failureThreshold}
              onChange={(e) => set({ failureThreshold: e.target.value })}
              hint="Failed clusters that pause the rollout."
              error={errors.failureThreshold}
            />
            <Field
              id="rollout-cluster-timeout"
              label="Per-cluster timeout (seconds)"
              type="number"
              min={10}
              value={draft.clusterTimeoutSeconds}
              onChange={(e) => set({ clusterTimeoutSeconds: e.target.value })}
              hint="A cluster not Ready on the target version by then has failed."
              error={errors.clusterTimeoutSeconds}
            />
          </div>
          <div className="mt-5 space-y-3 border-t border-slate-100 pt-4 dark:border-slate-800">
            <Checkbox
              id="rollout-require-approval"
              checked={draft.requireApproval}
              onChange={(v) => set({ requireApproval: v })}
              label="Require approval before each next stage"
              hint="After a stage and its soak, the rollout stops in “awaiting approval” until an operator approves."
            />
            <Checkbox
              id="rollout-include-unready"
              checked={draft.includeUnready}
              onChange={(v) => set({ includeUnready: v })}
              label="Include NotReady and draining clusters"
              hint="By default they are left out of the plan and listed as skipped."
            />
          </div>
        </Card>
      </div>

      <aside aria-label="Rollout plan" className="sticky top-6 space-y-4">
        <Card title="Plan">
          <div className="space-y-4">
            <div
              className="text-sm text-slate-600 dark:text-slate-400"
              aria-live="polite"
              aria-busy={planStale}
              data-testid="form-plan"
            >
              {matched.count === null && !planned ? (
                "Choose the clusters to see how the stages split them."
              ) : !previewInput ? (
                "Complete the form to see what the rollout will do."
              ) : planPreview.isError ? (
                <span className="text-rose-700 dark:text-rose-400">{planPreview.error.message}</span>
              ) : previewed ? (
                <div className={planStale ? "opacity-60" : ""}>
                  <PlanOutcome
                    plan={previewed.plan}
                    targetVersion={previewed.input.targetVersion}
                    maxUnavailable={previewed.input.maxUnavailable}
                    waitSeconds={previewed.input.waitSeconds}
                    requireApproval={previewed.input.requireApproval}
                  />
                </div>
              ) : (
                "Planning…"
              )}
            </div>
            <StagePlanBar stages={preview} total={previewTotal} />
            <p className="text-xs text-slate-500 dark:text-slate-400">
              Clusters already on the target version are skipped; so are NotReady and draining clusters (unless included), and any
              cluster NotReady when its turn comes. Upgrades start only inside the upgrade windows of all of a cluster&apos;s
              groups (set on the Groups page); outside them the rollout waits.
            </p>
            {plan.error && <InlineError error={plan.error} />}
            {Object.keys(errors).length > 0 && (
              <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
                Fix the highlighted fields first.
              </p>
            )}
            <Button type="submit" className="w-full" disabled={plan.isPending || create.isPending}>
              {plan.isPending ? "Planning…" : "Start rollout…"}
            </Button>
          </div>
        </Card>
      </aside>
      {confirming && (
        <ConfirmDialog
          title={`Start ${confirming.input.name}?`}
          description={<PlanSummary plan={confirming.plan} input={confirming.input} />}
          confirmLabel="Start rollout"
          pendingLabel="Starting…"
          pending={create.isPending}
          error={create.error}
          onConfirm={start}
          onClose={() => {
            create.reset();
            setConfirming(null);
          }}
        />
      )}
    </form>
  );
}

function Checkbox({
  id,
  checked,
  onChange,
  label,
  hint,
}: {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  hint: string;
}) {
  return (
    <div className="flex items-start gap-2.5">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={`${id}-hint`}
        className="mt-0.5 h-4 w-4 rounded border-slate-300 accent-sky-600 dark:border-slate-600"
      />
      <div>
        <label htmlFor={id} className="text-sm font-medium">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      </div>
    </div>
  );
}

const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

/** The plan's counts, as the server computed them just now, in the words the form's Plan card uses. */
function PlanSummary({ plan, input }: { plan: RolloutPlan; input: CreateRolloutInput }) {
  return (
    <div className="space-y-3" data-testid="rollout-plan-summary">
      <PlanOutcome
        plan={plan}
        targetVersion={input.targetVersion}
        maxUnavailable={input.maxUnavailable}
        waitSeconds={input.waitSeconds}
        requireApproval={input.requireApproval}
      />
      <p>
        <strong data-testid="plan-stages">{plural(plan.stages.length, "stage")}</strong> over{" "}
        <strong data-testid="plan-clusters">{plural(plan.planned, "cluster")}</strong>
        {plan.alreadyOnTarget ? ` (${plan.alreadyOnTarget} already on the target version)` : ""};{" "}
        <strong data-testid="plan-skipped">{plural(plan.skipped.length, "cluster")} skipped</strong>.
        {input.requireApproval ? " Each stage after the first waits for approval." : ""}
      </p>
      <ol className="list-inside list-decimal text-xs">
        {plan.stages.map((s) => (
          <li key={s.name}>
            {s.name}: {plural(s.clusters, "cluster")}
          </li>
        ))}
      </ol>
      {plan.skipped.length > 0 && (
        <div>
          <p className="text-xs font-medium">Skipped (not in the plan):</p>
          <ul className="max-h-32 overflow-y-auto text-xs">
            {plan.skipped.slice(0, 50).map((c) => (
              <li key={c.clusterId}>
                {c.name} — {c.reason}
              </li>
            ))}
            {plan.skipped.length > 50 && <li>and {plan.skipped.length - 50} more</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
