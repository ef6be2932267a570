"use client";

import { useMemo, useState, type FormEvent } from "react";
import { createGroupSchema } from "@/lib/domain/groups";
import { selectorProblem } from "@/lib/domain/selector";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { useCreateGroup, useUpdateGroup, type ClusterGroup, type GroupPatch } from "@/lib/client/groups";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import { SelectorInput } from "@/components/labels/selector-input";
import { FormActions } from "@/components/ui/form-actions";
import { SelectorPreview } from "./selector-preview";
import { viewerTimeZone } from "@/lib/domain/time-format";
import { UpgradeWindowsEditor, type WindowsDraft } from "./upgrade-windows-editor";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";

// Long enough to skip the half-typed states of "region in (eu-west-1,", short enough to feel live.
const PREVIEW_DEBOUNCE_MS = 250;

export const EXAMPLE_SELECTOR = "env=prod,region in (eu-west-1,eu-central-1)";

type Draft = { name: string; description: string; selector: string };
type Errors = Partial<Record<keyof Draft | "form", string>> & Record<string, string | undefined>;

/** The server's error placed at the field it is about (a taken name, a selector it disagrees with). */
function serverErrors(err: unknown): Errors {
  if (!(err instanceof ApiRequestError)) return err ? { form: (err as Error).message } : {};
  if (err.code === "conflict") return { name: err.message };
  const out: Errors = {};
  if (Array.isArray(err.details)) {
    for (const d of err.details as { field?: unknown; message?: unknown }[]) {
      const field = typeof d.field === "string" ? d.field.split(".")[0] : "";
      if ((field === "name" || field === "description" || field === "selector") && typeof d.message === "string")
        out[field] ??= d.message;
      // The windows editor places these itself ("upgradeTimeZone", "upgradeWindows.0.end").
      if ((field === "upgradeTimeZone" || field === "upgradeWindows") && typeof d.message === "string")
        out[d.field as string] ??= d.message;
    }
  }
  return Object.keys(out).length ? out : { form: err.message };
}

/** Create (no `group`) or edit a cluster group, with a live preview of what the selector matches. */
export function GroupDialog({ group, onClose }: { group?: ClusterGroup; onClose: () => void }) {
  const create = useCreateGroup();
  const update = useUpdateGroup();
  const mutation = group ? update : create;
  const [draft, setDraft] = useState<Draft>({
    name: group?.name ?? "",
    description: group?.description ?? "",
    selector: group?.selector ?? "",
  });
  const [errors, setErrors] = useState<Errors>({});
  const [windows, setWindows] = useState<WindowsDraft>(() => ({
    // The viewer's own zone: the likeliest one an operator means.
    timeZone: group?.upgradeTimeZone ?? viewerTimeZone(),
    windows: group?.upgradeWindows ?? [],
  }));

  const settled = useDebouncedValue(draft.selector, PREVIEW_DEBOUNCE_MS);
  const parseError = useMemo(() => selectorProblem(settled), [settled]);
  const previewSelector = settled.trim() && !parseError ? settled.trim() : null;
  // A fresh parse error wins over a stale submit-time one; the submit's stays until the text changes.
  const selectorError = parseError ?? errors.selector;

  const set = (key: keyof Draft) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [key]: e.target.value }));
    setErrors((er) => ({ ...er, [key]: undefined, form: undefined }));
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = createGroupSchema.safeParse({
      name: draft.name,
      description: draft.description.trim() || undefined,
      selector: draft.selector,
      upgradeWindows: windows.windows.length ? windows.windows : null,
      upgradeTimeZone: windows.windows.length ? windows.timeZone.trim() : null,
    });
    if (!parsed.success) {
      setErrors(
        Object.fromEntries(
          parsed.error.issues.map((i) => {
            const path = i.path.join(".");
            return [path.startsWith("upgrade") ? path : String(i.path[0] ?? "form"), i.message];
          }),
        ),
      );
      return;
    }
    setErrors({});
    const done = { onSuccess: onClose, onError: (err: unknown) => setErrors(serverErrors(err)) };
    if (!group) {
      create.mutate(parsed.data, done);
      return;
    }
    // Only what changed, so the audit log shows exactly the edit that was made.
    const patch: GroupPatch = {};
    if (parsed.data.name !== group.name) patch.name = parsed.data.name;
    if ((parsed.data.description ?? null) !== group.description) patch.description = parsed.data.description ?? null;
    if (parsed.data.selector !== group.selector) patch.selector = parsed.data.selector;
    if (JSON.stringify(parsed.data.upgradeWindows ?? null) !== JSON.stringify(group.upgradeWindows ?? null))
      patch.upgradeWindows = parsed.data.upgradeWindows ?? null;
    if ((parsed.data.upgradeTimeZone ?? null) !== group.upgradeTimeZone)
      patch.upgradeTimeZone = parsed.data.upgradeTimeZone ?? null;
    if (Object.keys(patch).length === 0) onClose();
    else update.mutate({ id: group.id, patch }, done);
  }

  return (
    <Dialog
      title={group ? `Edit group “${group.name}”` : "New cluster group"}
      description="A group is a saved label selector: every cluster whose labels match is in it, now and as clusters come and go."
      onClose={onClose}
    >
      <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label={group ? "Edit group" : "New group"}>
        <Field
          id="group-name"
          label="Name"
          autoFocus
          maxLength={63}
          placeholder="prod-eu"
          value={draft.name}
          onChange={set("name")}
          error={errors.name}
          hint="Lowercase letters, digits and '-'. Pipelines refer to it as ?group=name."
        />
        <Field
          id="group-description"
          label="Description (optional)"
          maxLength={500}
          placeholder="Production clusters in the EU"
          value={draft.description}
          onChange={set("description")}
          error={errors.description}
        />
        <div className="space-y-1.5">
          <label htmlFor="group-selector" className="block text-sm font-medium">
            Label selector
          </label>
          <SelectorInput
            id="group-selector"
            placeholder={EXAMPLE_SELECTOR}
            value={draft.selector}
            onValueChange={(selector) => set("selector")({ target: { value: selector } })}
            aria-invalid={selectorError ? true : undefined}
            aria-describedby={selectorError ? "group-selector-error" : "group-selector-hint"}
            className={`${inputClass} font-mono`}
          />
          {selectorError ? (
            <p id="group-selector-error" className="text-xs text-rose-600 dark:text-rose-400">
              {selectorError}
            </p>
          ) : (
            <p id="group-selector-hint" className="text-xs text-slate-500 dark:text-slate-400">
              kubectl syntax: <code className="font-mono">key=value</code>, <code className="font-mono">key!=value</code>,{" "}
              <code className="font-mono">key in (a,b)</code>, <code className="font-mono">key notin (a,b)</code>,{" "}
              <code className="font-mono">key</code>, <code className="font-mono">!key</code> — commas mean “and”.
            </p>
          )}
        </div>

        <SelectorPreview
          selector={previewSelector}
          settling={draft.selector !== settled}
          reason={parseError ? "Fix the selector to see matches" : "Type a selector"}
        />

        <UpgradeWindowsEditor
          value={windows}
          onChange={(next) => {
            setWindows(next);
            setErrors((er) => Object.fromEntries(Object.entries(er).filter(([k]) => !k.startsWith("upgrade") && k !== "form")));
          }}
          errors={errors}
        />

        {errors.form && (
          <p
            role="alert"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {errors.form}
          </p>
        )}
        <FormActions
          onCancel={onClose}
          pending={mutation.isPending}
          label={group ? "Save changes" : "Create group"}
          pendingLabel="Saving…"
        />
      </form>
    </Dialog>
  );
}
