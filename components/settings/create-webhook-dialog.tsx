"use client";

import { useState, type FormEvent } from "react";
import {
  SUBSCRIBABLE_EVENT_TYPES,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_FORMATS,
  webhookCreateSchema,
  type WebhookFormat,
} from "@/lib/domain/webhooks";
import { useCreateWebhook } from "@/lib/client/webhooks";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { Dialog } from "@/components/ui/dialog";
import { Field, SelectField } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";

type EventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

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

/** Subscribes a URL to fleet events, then shows its signing secret exactly once. */
export function CreateWebhookDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateWebhook();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<EventType[]>(["cluster.notReady", "cluster.ready", "cluster.removed"]);
  const [format, setFormat] = useState<WebhookFormat>("json");
  const [errors, setErrors] = useState<{ url?: string; events?: string }>({});
  // The secret lives in this component's state only and is gone when it closes.
  const [secret, setSecret] = useState<string | null>(null);

  function toggle(type: EventType, on: boolean) {
    setEvents((current) => (on ? [...current, type] : current.filter((t) => t !== type)));
    setErrors((e) => ({ ...e, events: undefined }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = webhookCreateSchema.safeParse({ url, events, format });
    if (!parsed.success) {
      const message = (field: string) => parsed.error.issues.find((i) => i.path[0] === field)?.message;
      setErrors({ url: message("url"), events: message("events") });
      return;
    }
    create.mutate(parsed.data, {
      onSuccess: (created) => {
        setSecret(created.secret);
        create.reset();
      },
    });
  }

  return (
    <Dialog
      title={secret ? "Webhook created" : "New webhook"}
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
          <fieldset aria-describedby={errors.events ? "webhook-events-error" : undefined}>
            <legend className="text-sm font-medium">Events</legend>
            <ul className="mt-1.5 grid gap-1 sm:grid-cols-2">
              {SUBSCRIBABLE_EVENT_TYPES.map((type) => (
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
          <SelectField
            id="webhook-format"
            label="Format"
            value={format}
            options={WEBHOOK_FORMATS.map((f) => ({ value: f, label: FORMAT_LABELS[f] }))}
            onValueChange={setFormat}
          />
          <FormActions
            error={create.error}
            onCancel={onClose}
            pending={create.isPending}
            label="Create webhook"
            pendingLabel="Creating…"
          />
        </form>
      )}
    </Dialog>
  );
}
