import { z } from "zod";
import { checkSelectorText, matchesSelector, parseSelector, type Selector } from "./selector";

// Webhook notifications (docs/integrations/webhooks.md): the events, the payload every receiver
// gets, the Slack rendering, the retry schedule and the NotReady/Ready debounce rule. Pure: the
// outbox, the delivery job and the API (lib/server/webhooks) read these.

export const WEBHOOK_EVENT_TYPES = [
  "cluster.notReady",
  "cluster.ready",
  "cluster.flapping",
  "cluster.certificateExpiring",
  "cluster.removed",
  "registration.failureRate",
  "registration.pendingApproval",
  "rollout.paused",
  "rollout.failed",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** What a subscription may ask for (the test event is sent on request, to one subscription). */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t !== "webhook.test") as Exclude<
  WebhookEventType,
  "webhook.test"
>[];

export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  "cluster.notReady": "Cluster NotReady",
  "cluster.ready": "Cluster Ready again",
  "cluster.flapping": "Cluster flapping",
  "cluster.certificateExpiring": "Certificate expiring within 7 days",
  "cluster.removed": "Cluster removed",
  "registration.failureRate": "Registration failures above the rate",
  "registration.pendingApproval": "Registration waiting for approval",
  "rollout.paused": "Rollout paused",
  "rollout.failed": "Rollout upgrade failed",
  "webhook.test": "Test event",
};

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The body of every json-format delivery (the OpenAPI document's WebhookPayload). */
export const webhookPayloadSchema = z.object({
  id: z.string().describe("The delivery id, also in X-Fleet-Delivery; the same on every retry of this delivery"),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  occurredAt: z.string().describe("ISO 8601 time of the change"),
  cluster: z
    .object({
      id: z.string(),
      name: z.string(),
      labels: z.record(z.string(), z.string()),
      owner: z.string().nullable().optional().describe("Who looks after the cluster (descriptive, set by operators)"),
      notes: z.string().nullable().optional().describe("The cluster's notes"),
      url: z.string().optional().describe("The cluster's page in the console (absolute, from the configured public URL)"),
    })
    .optional()
    .describe("The cluster the event is about, when there is one"),
  data: z.record(z.string(), z.unknown()).describe("The event's own fields (from, to, reason, counts, ...)"),
});
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;

/** One line a person reads in Slack (or any `{"text"}` receiver). */
export function slackText(p: WebhookPayload): string {
  // Slack's link syntax, so the name leads to the cluster's page.
  const who = p.cluster ? (p.cluster.url ? `cluster *<${p.cluster.url}|${p.cluster.name}>*` : `cluster *${p.cluster.name}*`) : "";
  const d = p.data as Record<string, unknown>;
  const reason = typeof d.reason === "string" && d.reason ? ` (${d.reason})` : "";
  switch (p.type) {
    case "cluster.notReady":
      return `:red_circle: Fleet: ${who} is NotReady${reason}`;
    case "cluster.ready":
      return `:large_green_circle: Fleet: ${who} is Ready again${reason}`;
    case "cluster.flapping":
      return `:warning: Fleet: ${who} is flapping: ${String(d.changesLastHour)} status changes in the last hour (threshold ${String(d.thresholdPerHour)})`;
    case "cluster.certificateExpiring":
      return `:hourglass: Fleet: the certificate of ${who} expires at ${String(d.notAfter)}`;
    case "cluster.removed":
      return `:wastebasket: Fleet: ${who} was removed${reason}`;
    case "registration.failureRate":
      return `:no_entry: Fleet: ${String(d.failures)} registration failures in the last ${String(d.windowMinutes)} minutes (threshold ${String(d.threshold)})`;
    case "registration.pendingApproval":
      return `:raised_hand: Fleet: cluster *${String(d.name)}* waits for approval (token ${String(d.tokenName)}); decide in the console at ${String(d.link)}`;
    case "rollout.paused":
      return `:pause_button: Fleet: rollout *${String(d.rolloutName)}* paused${reason}`;
    case "rollout.failed":
      return `:x: Fleet: rollout *${String(d.rolloutName)}* failed to upgrade ${who}${reason}`;
    case "webhook.test":
      return "Fleet: a test event from Fleet Registry";
  }
}

/** The body a subscription of `format` is sent for `payload`. */
export function webhookBody(payload: WebhookPayload, format: WebhookFormat): string {
  return JSON.stringify(format === "slack" ? { text: slackText(payload) } : payload);
}

// Retries: exponential from 10 s, doubling, capped at an hour between attempts, for 24 h after the
// event; then the delivery is marked failed. Jitter (+-20%) keeps many deliveries that failed
// together (a receiver's outage) from all coming back at the same second.
export const RETRY_BASE_MS = 10_000;
export const RETRY_MAX_DELAY_MS = 3_600_000;
export const RETRY_FOR_MS = 24 * 3_600_000;
/** Each attempt's limit for connecting, sending and reading the answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * When the attempt after `attempts` failed ones is due, or null when the 24 h are used up.
 * `random` in [0, 1): 0.5 is the schedule without jitter.
 */
export function nextAttemptAt(createdAt: Date, attempts: number, now: Date, random: number): Date | null {
  const delay = Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_DELAY_MS);
  const jittered = Math.round(delay * (0.8 + 0.4 * random));
  const at = now.getTime() + jittered;
  return at - createdAt.getTime() > RETRY_FOR_MS ? null : new Date(at);
}

/** Whether a receiver's answer counts as delivered. */
export const deliveredStatus = (status: number) => status >= 200 && status < 300;

// Debounce: a cluster.notReady is held this long before it is sent; a cluster that is Ready again
// within it sends neither event (a blip is not news). A Ready after a NotReady that was sent is.
export const NOT_READY_HOLD_MS = 60_000;

/**
 * Whether a Ready at `readyAt` ends a NotReady (recorded at `notReadyAt`) that is still held: then
 * neither is sent. A NotReady held the whole NOT_READY_HOLD_MS is sent, and so is the Ready after it.
 */
export function withinNotReadyHold(notReadyAt: Date, readyAt: Date): boolean {
  return readyAt.getTime() - notReadyAt.getTime() < NOT_READY_HOLD_MS;
}

/** Flapping: more status changes in the last hour than the setting; sent once an hour per cluster at most. */
export function flappingDue(changesLastHour: number, thresholdPerHour: number, sentInLastHour: boolean): boolean {
  return changesLastHour > thresholdPerHour && !sentInLastHour;
}

// Registration failures: more than this many failed attempts in the window sends one event an hour.
export const REGISTRATION_FAILURE_WINDOW_MINUTES = 15;
export const REGISTRATION_FAILURE_THRESHOLD = 20;
export const CERTIFICATE_EXPIRY_WARNING_DAYS = 7;

const WEBHOOK_URL_MAX = 2048;
const WEBHOOK_URL_TOO_LONG = `The URL can be at most ${WEBHOOK_URL_MAX.toLocaleString("en")} characters.`;
const WEBHOOK_URL_ERROR = "The URL must be an http:// or https:// URL without a user name or password.";

/**
 * A webhook URL as the WHATWG URL parser reads it (`new URL(input).href`), or null when it does
 * not parse. The parser forgives much (`https:host/x`, `https:/host`, backslashes for slashes, tabs
 * and newlines dropped) and a delivery connects to what it reads, so the canonical form is what is
 * checked, stored, shown and audited: what an operator reads is where deliveries go.
 */
export function canonicalWebhookUrl(input: string): string | null {
  try {
    return new URL(input).href;
  } catch {
    return null;
  }
}

/** The subscription's form and PATCH body: any spelling the parser accepts, stored canonical. */
export const webhookUrlSchema = z
  .string()
  .trim()
  .max(WEBHOOK_URL_MAX, { error: WEBHOOK_URL_TOO_LONG })
  .transform((s, ctx) => {
    const href = canonicalWebhookUrl(s);
    if (href === null) {
      ctx.addIssue({ code: "custom", message: WEBHOOK_URL_ERROR });
      return z.NEVER;
    }
    return href;
  })
  .pipe(
    z
      .string()
      .max(WEBHOOK_URL_MAX, { error: WEBHOOK_URL_TOO_LONG })
      .refine(
        (href) => {
          const u = new URL(href);
          return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password;
        },
        { error: WEBHOOK_URL_ERROR },
      ),
  );

export const webhookEventsSchema = z
  .array(z.enum(SUBSCRIBABLE_EVENT_TYPES as [string, ...string[]]), { error: "Choose the events to send." })
  .min(1, { error: "Choose at least one event." })
  .transform((events) => [...new Set(events)] as (typeof SUBSCRIBABLE_EVENT_TYPES)[number][]);

/**
 * A subscription's scope: a kubectl-style label selector (the groups' parser and limits). An
 * event goes to a scoped subscription only when the labels it is about (its cluster's, or a
 * registration request's) match when it is enqueued. Empty or null: every event.
 */
export const webhookSelectorSchema = z
  .string()
  .trim()
  .superRefine(checkSelectorText)
  .nullable()
  .describe(
    "Label selector (kubectl syntax) scoping the subscription to events about clusters or registration requests whose labels match; empty or null: every event. Events that carry no labels (rollout pauses, the registration failure rate) go only to subscriptions without a selector.",
  )
  .transform((s) => (s ? s : null));

/** A subscription's scope as the outbox reads it: parsed, null for none, "unparsable" for a stored one that no longer parses. */
export type WebhookScope = Selector | null | "unparsable";

export function webhookScope(selector: string | null): WebhookScope {
  if (!selector) return null;
  try {
    return parseSelector(selector);
  } catch {
    return "unparsable";
  }
}

/**
 * A team subscription's bound: its team's scope as it stands when an event is enqueued; null for a
 * fleet subscription; "none" when the team is gone or its scope is no longer usable.
 */
export type WebhookTeamScope = Selector | null | "none";

/**
 * Whether an event reaches a subscription of `scope` (and, for a team's, `team`). `labels`: those
 * of what the event is about (a cluster, a registration request); null when it is about nothing
 * labelled (a rollout pause, the failure rate). An unscoped subscription hears of everything; a
 * scoped one only of what its selector matches, so never of an event without labels (nothing
 * shows it is in scope), and a selector that no longer parses matches nothing rather than
 * everything. A team's subscription hears only of what its team's scope takes in, whatever its own
 * selector says.
 */
export function inWebhookScope(
  scope: WebhookScope,
  labels: Readonly<Record<string, string>> | null,
  team: WebhookTeamScope = null,
): boolean {
  if (team !== null && (team === "none" || labels === null || !matchesSelector(labels, team))) return false;
  if (scope === null) return true;
  if (scope === "unparsable" || labels === null) return false;
  return matchesSelector(labels, scope);
}

/** Events that carry no labels: about the fleet, not a cluster, so never sent to a team's subscription. */
export const UNLABELLED_EVENT_TYPES = ["registration.failureRate", "rollout.paused"] as const satisfies WebhookEventType[];

/** Why a team's subscription cannot ask for these events (they would never reach it), or null. */
export function teamEventsProblem(events: readonly string[]): string | null {
  const fleetOnly = events.filter((e) => (UNLABELLED_EVENT_TYPES as readonly string[]).includes(e));
  if (!fleetOnly.length) return null;
  return `A team's subscription hears only of its own clusters and registration requests; ${fleetOnly.join(" and ")} ${fleetOnly.length > 1 ? "are" : "is"} about the whole fleet and would never reach it.`;
}

/** Also send X-Fleet-Signature, the body-only signature a captured delivery can be replayed with. */
const legacySignatureSchema = z
  .boolean()
  .describe(
    "Also send X-Fleet-Signature (HMAC of the body alone, replayable: it covers no time) for a receiver not yet on X-Fleet-Signature-V2",
  );

export const webhookCreateSchema = z
  .object({
    url: webhookUrlSchema,
    events: webhookEventsSchema,
    format: z.enum(WEBHOOK_FORMATS).default("json"),
    enabled: z.boolean().default(true),
    selector: webhookSelectorSchema.optional(),
    legacySignature: legacySignatureSchema.optional(),
    team: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "The team (name or id) that owns it: it hears only of the team's clusters, and the team's admins manage it. Absent: a fleet subscription for a fleet admin; without that role, the caller's one team where they are admin (one of several must be named)",
      ),
  })
  .strict();
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

export const webhookPatchSchema = z
  .object({
    url: webhookUrlSchema,
    events: webhookEventsSchema,
    format: z.enum(WEBHOOK_FORMATS),
    enabled: z.boolean(),
    selector: webhookSelectorSchema,
    legacySignature: legacySignatureSchema,
  })
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Name at least one field to change." });
export type WebhookPatch = z.infer<typeof webhookPatchSchema>;
