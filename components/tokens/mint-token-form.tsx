"use client";

import { useMemo, useState, type FocusEvent, type FormEvent } from "react";
import { unreachableRequiredLabels } from "@/lib/domain/agent-manifest";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { useFleetFacts, useMintToken, type MintedToken } from "@/lib/client/tokens";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, CheckboxField } from "@/components/ui/field";
import { TeamField } from "@/components/teams/team-field";
import { FixedLabelsEditor } from "./fixed-labels-editor";
import { LabelScopeBuilder } from "./label-scope-builder";
import { draftToInput, initialDraft, rowId, type FixedRow, type MintDraft } from "./mint-token-draft";
import { TtlPicker } from "./ttl-picker";

/** Control id -> the error key it shows (most are the same). */
function errorKeyOf(id: string): string {
  return id === "ttl-amount" ? "ttl" : id;
}

/** The server's invalid_request details ({field, message}[]) as form errors. */
function serverFieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiRequestError) || !Array.isArray(err.details)) return {};
  const out: Record<string, string> = {};
  for (const d of err.details as { field?: unknown; message?: unknown }[]) {
    if (typeof d.field !== "string" || typeof d.message !== "string") continue;
    const top = d.field.split(".")[0]!;
    const key = top === "ttlSeconds" ? "ttl" : top === "allowedLabels" ? "scope" : top;
    out[key] ??= d.message;
  }
  return out;
}

/** A team the viewer may mint for: its scope, and the labels the scope pins (pre-filled as fixed labels). */
export type MintTeam = { name: string; scope: string; pinned: Record<string, string> };

/** The fixed-label rows with a team's pinned labels set over them (its tokens must fix them). */
function withPinned(rows: FixedRow[], pinned: Record<string, string>): FixedRow[] {
  const kept = rows.filter((r) => !Object.hasOwn(pinned, r.key.trim()));
  return [...Object.entries(pinned).map(([key, value]) => ({ id: rowId(), key, value })), ...kept];
}

/**
 * The mint form, as a panel above the token list. Errors appear once a control is left or the
 * form is submitted, not while the first characters are typed. `teams`: those the viewer may mint
 * for; `fleetMint`: whether they may mint for the fleet (no team) too.
 */
export function MintTokenForm({
  onCancel,
  onMinted,
  teams = [],
  fleetMint = true,
}: {
  onCancel: () => void;
  onMinted: (token: MintedToken) => void;
  teams?: readonly MintTeam[];
  fleetMint?: boolean;
}) {
  const mint = useMintToken();
  const fleet = useFleetFacts();
  const [draft, setDraft] = useState<MintDraft>(() => {
    const first = fleetMint ? undefined : teams[0];
    return first ? { ...initialDraft(), team: first.name, fixedRows: withPinned([], first.pinned) } : initialDraft();
  });
  const team = teams.find((t) => t.name === draft.team);
  const chooseTeam = (name: string) =>
    setDraft((d) => ({ ...d, team: name, fixedRows: withPinned(d.fixedRows, teams.find((t) => t.name === name)?.pinned ?? {}) }));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);

  const { input, errors } = useMemo(() => draftToInput(draft), [draft]);
  const serverErrors = serverFieldErrors(mint.error);
  const shown = (key: string) => (submitted || touched.has(key) ? errors[key] : undefined) ?? serverErrors[key];
  const visibleErrors = Object.fromEntries(
    [...new Set([...Object.keys(errors), ...Object.keys(serverErrors)])]
      .map((k) => [k, shown(k)])
      .filter((e): e is [string, string] => !!e[1]),
  );

  const update = (patch: Partial<MintDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const onBlur = (e: FocusEvent<HTMLFormElement>) => {
    const id = (e.target as HTMLElement).id;
    if (id && !touched.has(errorKeyOf(id))) setTouched((t) => new Set(t).add(errorKeyOf(id)));
  };

  const unreachable = fleet.data
    ? unreachableRequiredLabels({
        requiredLabels: fleet.data.requiredLabels,
        fixedLabels: Object.fromEntries(draft.fixedRows.map((r) => [r.key.trim(), r.value.trim()])),
        // Only the keys matter here: a key in the scope can be sent, whatever its values.
        allowedLabels:
          draft.scopeMode === "scoped" ? Object.fromEntries(draft.scopeRows.map((r) => [r.key.trim(), "*" as const])) : null,
      })
    : [];

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    if (!input) {
      // Take the keyboard to the first problem rather than leaving the user to hunt for it.
      requestAnimationFrame(() => document.querySelector<HTMLElement>("#mint-token-form [aria-invalid=true]")?.focus());
      return;
    }
    mint.mutate(input, {
      onSuccess: (minted) => {
        onMinted(minted);
        // Drop the answer (it holds the secret) from the mutation as soon as it is handed over.
        mint.reset();
      },
    });
  }

  const generalError = mint.error && Object.keys(serverErrors).length === 0 ? mint.error.message : null;

  return (
    <Card title="Mint a registration token" className="mb-6">
      <form
        id="mint-token-form"
        aria-label="Mint a registration token"
        noValidate
        onSubmit={onSubmit}
        onBlur={onBlur}
        className="space-y-6"
      >
        <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-x-8 gap-y-5">
          <div className="space-y-5">
            <TeamField
              id="team"
              label="For"
              teams={teams.map((t) => ({ value: t.name, label: `Team ${t.name}` }))}
              fleet={fleetMint ? "The fleet (no team)" : undefined}
              note={
                teams[0] && (
                  <p className="text-sm text-slate-600 dark:text-slate-400">
                    For team <span className="font-medium">{teams[0].name}</span>:{" "}
                    {`its clusters land in the team's scope (${teams[0].scope}); the labels it pins are fixed below.`}
                  </p>
                )
              }
              value={draft.team}
              onChange={chooseTeam}
              hint={
                team
                  ? `Its clusters land in the team's scope (${team.scope}); the labels that scope pins are fixed below.`
                  : "A fleet token: its clusters belong to whichever teams' scopes their labels match."
              }
            />
            <Field
              id="name"
              label="Name"
              autoFocus
              maxLength={100}
              placeholder="prod-eu-1 install"
              value={draft.name}
              onChange={(e) => update({ name: e.target.value })}
              error={shown("name")}
              hint="Shown in the token list and the audit log."
            />
            <Field
              id="description"
              label="Description (optional)"
              maxLength={500}
              placeholder="Who it is for and why"
              value={draft.description}
              onChange={(e) => update({ description: e.target.value })}
              error={shown("description")}
            />
            <TtlPicker value={draft} onChange={update} error={shown("ttl")} />
            <div className="max-w-48">
              <Field
                id="maxClusters"
                label="Max clusters"
                type="number"
                min={1}
                max={100_000}
                inputMode="numeric"
                value={draft.maxClusters}
                onChange={(e) => update({ maxClusters: e.target.value })}
                error={shown("maxClusters")}
                hint="How many clusters it may register."
              />
            </div>
            <CheckboxField
              id="requireApproval"
              label="Require approval"
              checked={draft.requireApproval ?? fleet.data?.requireApprovalByDefault ?? false}
              onCheckedChange={(on) => update({ requireApproval: on })}
              hint="Each cluster waits in Approvals until an operator lets it in (or turns it away)."
            />
          </div>
          <div className="space-y-6">
            <LabelScopeBuilder mode={draft.scopeMode} rows={draft.scopeRows} errors={visibleErrors} onChange={update} />
            <FixedLabelsEditor rows={draft.fixedRows} errors={visibleErrors} onChange={(fixedRows) => update({ fixedRows })} />
            {unreachable.length > 0 && (
              <p
                role="status"
                className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200 ring-inset dark:bg-amber-950/50 dark:text-amber-200 dark:ring-amber-900"
              >
                Every cluster must carry {unreachable.map((k) => `"${k}"`).join(" and ")}, but this token neither fixes{" "}
                {unreachable.length > 1 ? "them" : "it"} nor lets agents ask for {unreachable.length > 1 ? "them" : "it"}: every
                registration with it would be refused. Add {unreachable.length > 1 ? "them" : "it"} to the scope or as a fixed
                label.
              </p>
            )}
          </div>
        </div>

        {generalError && (
          <p
            role="alert"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {generalError}
          </p>
        )}
        <div className="flex items-center gap-3 border-t border-slate-200 pt-5 dark:border-slate-800">
          <Button type="submit" disabled={mint.isPending}>
            {mint.isPending ? "Minting…" : "Mint token"}
          </Button>
          <Button type="button" variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          {submitted && !input && (
            <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
              Fix the highlighted fields to mint the token.
            </p>
          )}
        </div>
      </form>
    </Card>
  );
}
