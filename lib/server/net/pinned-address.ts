import "server-only";
import type { LookupFunction } from "node:net";

// A connection to a checked address: the host is resolved and checked once per request
// (resolveTarget), and the socket goes to that answer, never to another lookup's (DNS rebinding).

export type CheckedAddress = { address: string; family: 4 | 6 };

/** A `lookup` for an https.Agent that answers whatever address `current()` holds. */
export function pinnedLookup(current: () => CheckedAddress | null): LookupFunction {
  return ((_host: string, o: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    const target = current()!;
    return o?.all ? cb(null, [target]) : cb(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * Why a connection failed, safe to show: a system error's code (ECONNREFUSED, CERT_HAS_EXPIRED...)
 * and nothing else, since messages can quote the answer (an unparsable body) or the request.
 */
export function connectionFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z0-9_]{1,64}$/.test(code) ? code : "no usable answer";
}
