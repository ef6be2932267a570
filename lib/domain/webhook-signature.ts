import { createHmac, timingSafeEqual } from "node:crypto";

// How a webhook delivery is signed and how a receiver checks it (docs/integrations/webhooks.md). The signature
// covers the time of sending with the body, `${timestamp}.${body}`, so a captured delivery
// replayed later is refused once it is older than the tolerance, as Stripe and Slack do.
// Timestamp and signature are a pair of plain headers rather than one composite value: a receiver
// reads each without parsing, and the signature keeps the `sha256=<hex>` shape of the first one.
//
// X-Fleet-Signature (the body alone) is sent only to a subscription that opts into it
// (`legacySignature`), for a receiver not yet moved to V2: it covers no time, so a captured
// delivery verifies forever and can be replayed. It cannot stand in for the new one: the new
// signed text starts with the timestamp's digits, and every body starts with "{".

export const WEBHOOK_HEADERS = {
  timestamp: "x-fleet-timestamp",
  signature: "x-fleet-signature-v2",
  /** HMAC of the body alone (replayable): only for a subscription that opted into it. */
  legacySignature: "x-fleet-signature",
} as const;

/** How far a delivery's timestamp may be from the receiver's clock, either way. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const hmacHex = (secret: string, ...parts: (string | Buffer)[]) =>
  parts.reduce((h, part) => h.update(part), createHmac("sha256", secret)).digest("hex");

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` under the subscription's secret. */
export function webhookSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return `sha256=${hmacHex(secret, `${timestamp}.`, body)}`;
}

/**
 * The headers that sign one attempt: the time of sending (Unix seconds) and the signature over
 * it; with `legacy`, the replayable body-only signature as well.
 */
export function webhookSignatureHeaders(
  secret: string,
  body: string,
  now: Date,
  { legacy = false }: { legacy?: boolean } = {},
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: webhookSignature(secret, timestamp, body),
    ...(legacy ? { [WEBHOOK_HEADERS.legacySignature]: `sha256=${hmacHex(secret, body)}` } : {}),
  };
}

export type SignatureCheck = { ok: true } | { ok: false; reason: "missing" | "stale" | "mismatch" };

/**
 * A receiver's check of a delivery, over the raw body as received: the timestamp within the
 * tolerance of `now`, and the signature over `${timestamp}.${body}`, compared in constant time.
 */
export function verifyWebhookSignature(input: {
  secret: string;
  body: string | Buffer;
  timestamp: string | undefined;
  signature: string | undefined;
  now?: Date;
  toleranceSeconds?: number;
}): SignatureCheck {
  const { secret, body, timestamp, signature } = input;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "missing" };
  const age = (input.now ?? new Date()).getTime() / 1000 - Number(timestamp);
  if (Math.abs(age) > (input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) return { ok: false, reason: "stale" };
  const expected = Buffer.from(webhookSignature(secret, Number(timestamp), body));
  const got = Buffer.from(signature);
  return got.length === expected.length && timingSafeEqual(got, expected) ? { ok: true } : { ok: false, reason: "mismatch" };
}
