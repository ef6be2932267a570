"use client";

import { useMemo, useState, type FormEvent } from "react";
import {
  SUBSCRIBABLE_EVENT_TYPES,
  UNLABELLED_EVENT_TYPES,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_FORMATS,
  webhookCreateSchema,
  type WebhookFormat,
  type WebhookPatch,
} from "@/lib/domain/webhooks";
import { selectorProblem } from "@/lib/domain/selector";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { useSelectorPreview } from "@/lib/client/groups";
import { useTeams } from "@/lib/client/teams";
import { useCreateWebhook, useUpdateWebhook, type Webhook } from "@/lib/client/webhooks";
import { SelectorInput } from "@/components/labels/selector-input";
import { NO_TEAM, TeamField, type TeamOption } from "@/components/teams/team-field";
import { Badge } from "@/components/ui/badge";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { Dialog } from "@/components/ui/dialog";
import { Field, SelectField, inputClass } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";

type EventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** Whom the caller makes subscriptions for: "fleet" (a fleet admin: the fleet's, or any team's), or the teams they administer. */
export type WebhookOwners = "fleet" | { id: string; name: string }[];

/** Events a team's subscription can hear of: those about its clusters (the others carry no labels). */
const TEAM_EVENT_TYPES = SUBSCRIBABLE_EVENT_TYPES.filter((t) => !(UNLABELLED_EVENT_TYPES as readonly string[]).includes(t));
type Errors = { url?: string; events?: string; selector?: string };

// Long enough to skip half-typed states like "region in (eu-west-1,", short enough to feel live.
const SCOPE_DEBOUNCE_MS = 250;

const FORMAT_LABELS: Record<WebhookFormat, string> = { json: "JSON payload", slack: 'Slack ({"text": …})' };

// What a receiver runs to check a delivery, with the secret it was just given (docs/integrations/webhooks.md).
const verifySnippet = (
  secret: string,
) => `// Node: X-Fleet-Signature-V2 is sha256=HMAC-SHA256(timestamp + "." + raw body, secret);
// refuse an X-Fleet-Timestamp more than 5 minutes from now (a replay)
const { createHmac, timingSafeEqual } = require("node:crypto");
const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
const expected = "sha256=" + createHmac("sha256", "${secret}").update(timestamp + ".").update(rawBody).digest("hex");
const ok = fresh && expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));`;

function RevealedSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <SecretReveal
      notice="Copy the signing secret now: it is shown only this once and stored sealed."
      label="Signing secret"
      secret={secret}
      copyLabel="Copy secret"
      testId="webhook-secret"
      usageLabel="Verify each delivery before trusting it:"
      usage={verifySnippet(secret)}
      onDone={onDone}
    />
  );
}

/** The server's field errors placed at their fields (a selector it refused, say). */
function serverErrors(err: unknown): Errors {
  if (!(err instanceof ApiRequestError) || !Array.isArray(err.details)) return {};
  const out: Errors = {};
  for (const d of err.details as { field?: unknown; message?: unknown }[]) {
    const field = typeof d.field === "string" ? d.field.split(".")[0] : "";
    if ((field === "url" || field === "events" || field === "selector") && typeof d.message === "string")
      out[field] ??= d.message;
  }
  return out;
}

/** How many clusters a scope covers now, as the user types (null selector: every cluster). */
function ScopeCount({ selector, problem, settling }: { selector: string; problem: string | null; settling: boolean }) {
  const preview = useSelectorPreview(problem ? null : selector);
  let text: string;
  if (problem) text = "Fix the selector to see what it matches";
  else if (preview.isError) text = "Could not count the matching clusters";
  else if (!preview.data) text = "Counting matching clusters…";
  else {
    const n = preview.data.total;
    const clusters = `${n.toLocaleString("en-US")} cluster${n === 1 ? "" : "s"}`;
    text = selector ? `Matches ${clusters} now` : `Every cluster (${clusters} now)`;
  }
  return (
    <p
      role="status"
      aria-live="polite"
      data-testid="webhook-scope-count"
      className={`text-xs font-medium tabular-nums text-slate-700 transition-opacity dark:text-slate-300 ${
        settling || preview.isFetching ? "opacity-60" : ""
      }`}
    >
      {text}
    </p>
  );
}

/** The teams to choose an owner from: every team for a fleet admin (beside the fleet), else those the caller administers. */
function useOwnerTeams(owners: WebhookOwners): TeamOption[] {
  const teams = useTeams();
  return (owners === "fleet" ? (teams.data ?? []) : owners).map((t) => ({ value: t.id, label: `Team ${t.name}` }));
}

/**
 * Subscribes a URL to fleet events, then shows its signing secret exactly once; with `webhook`,
 * changes that subscription (URL, events, format, scope) instead. A subscription a team owns hears
 * only of the team's clusters; its owner is chosen once, at creation.
 */
export function CreateWebhookDialog({
  webhook,
  owners,
  onClose,
}: {
  webhook?: Webhook;
  owners: WebhookOwners;
  onClose: () => void;
}) {
  const ownerTeams = useOwnerTeams(owners);
  const [owner, setOwner] = useState(webhook?.team?.id ?? (owners === "fleet" ? NO_TEAM : (owners[0]?.id ?? NO_TEAM)));
  const forTeam = owner !== NO_TEAM;
  const eventTypes = forTeam ? TEAM_EVENT_TYPES : SUBSCRIBABLE_EVENT_TYPES;
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const mutation = webhook ? update : create;
  const [url, setUrl] = useState(webhook?.url ?? "");
  const [events, setEvents] = useState<EventType[]>(
    (webhook?.events.filter((e) => e !== "webhook.test") as EventType[] | undefined) ?? [
      "cluster.notReady",
      "cluster.ready",
      "cluster.removed",
    ],
  );
  const [format, setFormat] = useState<WebhookFormat>(webhook?.format ?? "json");
  const [selector, setSelector] = useState(webhook?.selector ?? "");
  const [legacySignature, setLegacySignature] = useState(webhook?.legacySignature ?? false);
  const [errors, setErrors] = useState<Errors>({});
  // The secret lives in this component's state only and is gone when it closes.
  const [secret, setSecret] = useState<string | null>(null);

  const settled = useDebouncedValue(selector.trim(), SCOPE_DEBOUNCE_MS);
  const problem = useMemo(() => selectorProblem(settled), [settled]);
  const selectorError = problem ?? errors.selector;

  function toggle(type: EventType, on: boolean) {
    setEvents((current) => (on ? [...current, type] : current.filter((t) => t !== type)));
    setErrors((e) => ({ ...e, events: undefined }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = webhookCreateSchema.safeParse({
      url,
      // A team's subscription asks only for what can reach it (a choice made before the owner changed).
      events: events.filter((t) => eventTypes.includes(t)),
      format,
      selector,
      legacySignature,
      ...(forTeam ? { team: owner } : {}),
    });
    if (!parsed.success) {
      const message = (field: string) => parsed.error.issues.find((i) => i.path[0] === field)?.message;
      setErrors({ url: message("url"), events: message("events"), selector: message("selector") });
      return;
    }
    const onError = (err: unknown) => setErrors(serverErrors(err));
    if (!webhook) {
      create.mutate(parsed.data, {
        onSuccess: (created) => {
          setSecret(created.secret);
          create.reset();
        },
        onError,
      });
      return;
    }
    // Only what changed, so the audit log shows exactly the edit that was made.
    const patch: WebhookPatch = {};
    if (parsed.data.url !== webhook.url) patch.url = parsed.data.url;
    // The owner is fixed at creation: an edit never names one.
    if ([...parsed.data.events].sort().join() !== [...webhook.events].sort().join()) patch.events = parsed.data.events;
    if (parsed.data.format !== webhook.format) patch.format = parsed.data.format;
    if (parsed.data.selector !== webhook.selector) patch.selector = parsed.data.selector;
    if (legacySignature !== webhook.legacySignature) patch.legacySignature = legacySignature;
    if (Object.keys(patch).length === 0) onClose();
    else update.mutate({ id: webhook.id, patch }, { onSuccess: onClose, onError });
  }

  return (
    <Dialog
      title={secret ? "Webhook created" : webhook ? "Edit webhook" : "New webhook"}
      description={
        secret ? undefined : "Fleet events are POSTed to this URL, signed with a secret only you and the receiver know."
      }
      onClose={onClose}
    >
      {secret ? (
        <RevealedSecret secret={secret} onDone={onClose} />
      ) : (
        <form onSubmit={submit} noValidate className="space-y-4">
          <Field
            id="webhook-url"
            label="URL"
            type="url"
            placeholder="https://hooks.example.com/fleet"
            value={url}
            autoFocus
            onChange={(e) => {
              setUrl(e.target.value);
              setErrors((x) => ({ ...x, url: undefined }));
            }}
            hint="http:// or https://. Private and loopback addresses are refused unless allowed above."
            error={errors.url}
          />
          {webhook ? (
            <p className="text-sm" data-testid="webhook-owner">
              <span className="font-medium">Owned by</span>{" "}
              {webhook.team ? `team ${webhook.team.name}: only its clusters' events` : "the fleet"}
            </p>
          ) : (
            <TeamField
              id="webhook-owner"
              label="Owned by"
              teams={ownerTeams}
              fleet={owners === "fleet" ? "The fleet (every cluster)" : undefined}
              value={owner}
              onChange={setOwner}
              hint={
                forTeam
                  ? "The team's admins manage it, and it hears only of the clusters (and waiting registrations) in the team's scope when each event happens."
                  : undefined
              }
            />
          )}
          <fieldset aria-describedby={errors.events ? "webhook-events-error" : undefined}>
            <legend className="text-sm font-medium">Events</legend>
            <ul className="mt-1.5 grid gap-1 sm:grid-cols-2">
              {eventTypes.map((type) => (
                <li key={type}>
                  <label className="flex cursor-pointer items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      checked={events.includes(type)}
                      onChange={(e) => toggle(type, e.target.checked)}
                      className="h-4 w-4 rounded border-slate-300 accent-sky-600"
                    />
                    {WEBHOOK_EVENT_LABELS[type]}
                  </label>
                </li>
              ))}
            </ul>
            {errors.events && (
              <p id="webhook-events-error" className="mt-1 text-xs text-rose-600 dark:text-rose-400">
                {errors.events}
              </p>
            )}
          </fieldset>
          <div className="space-y-1.5">
            <label htmlFor="webhook-selector" className="block text-sm font-medium">
              Only clusters matching (optional)
            </label>
            <SelectorInput
              id="webhook-selector"
              placeholder="env=prod,region in (eu-west-1,eu-central-1)"
              value={selector}
              onValueChange={(next) => {
                setSelector(next);
                setErrors((x) => ({ ...x, selector: undefined }));
              }}
              aria-invalid={selectorError ? true : undefined}
              aria-describedby={`${selectorError ? "webhook-selector-error" : "webhook-selector-hint"} webhook-scope-count`}
              className={`${inputClass} font-mono`}
            />
            {selectorError ? (
              <p id="webhook-selector-error" className="text-xs text-rose-600 dark:text-rose-400">
                {selectorError}
              </p>
            ) : (
              <p id="webhook-selector-hint" className="text-xs text-slate-500 dark:text-slate-400">
                A label selector in kubectl syntax. Events go out only for clusters (and registrations waiting for approval) it
                matches when they happen; events about nothing labelled (rollout pauses, the failure rate) only without one.
                Empty: every event.
              </p>
            )}
            <div id="webhook-scope-count">
              <ScopeCount selector={settled} problem={problem} settling={selector.trim() !== settled} />
            </div>
          </div>
          <SelectField
            id="webhook-format"
            label="Format"
            value={format}
            options={WEBHOOK_FORMATS.map((f) => ({ value: f, label: FORMAT_LABELS[f] }))}
            onValueChange={setFormat}
          />
          <div className="space-y-1">
            <label className="flex cursor-pointer items-center gap-2 text-sm">
              <input
                id="webhook-legacy-signature"
                type="checkbox"
                checked={legacySignature}
                onChange={(e) => setLegacySignature(e.target.checked)}
                aria-describedby="webhook-legacy-signature-hint"
                className="h-4 w-4 rounded border-slate-300 accent-amber-600"
              />
              Also send the legacy <code className="font-mono text-xs">X-Fleet-Signature</code> header
              <Badge tone="amber">replayable</Badge>
            </label>
            <p id="webhook-legacy-signature-hint" className="text-xs text-slate-500 dark:text-slate-400">
              Only for a receiver that does not check X-Fleet-Signature-V2 yet. The legacy header signs the body alone, not the
              time: anyone who captures one delivery can send it again, at any time, and it still verifies.
            </p>
          </div>
          <FormActions
            error={Object.keys(serverErrors(mutation.error)).length ? null : mutation.error}
            onCancel={onClose}
            pending={mutation.isPending}
            label={webhook ? "Save changes" : "Create webhook"}
            pendingLabel={webhook ? "Saving…" : "Creating…"}
          />
        </form>
      )}
    </Dialog>
  );
}
