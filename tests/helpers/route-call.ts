// A route's answer without the built server: the contract's query and body are parsed as
// adminRoute parses them (parseWith, the same 400s), the handler calls the service the route
// calls, the reply is checked against the contract and read back as JSON, and a thrown error
// becomes the status and body errorReply gives (anything else is thrown, as the 500 would hide it). Authentication, roles and same-origin stay with
// the system tests (tests/system/role-matrix.test.ts), which start the server.
import type { BodyOf, QueryOf, ReplyOf, RouteContract } from "@/lib/contracts/route";
import { replyProblem } from "@/lib/contracts/route";
import { ApiError, errorReply, knownError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import type { Actor } from "@/lib/server/audit/record-audit";
import { settingsRoutes } from "@/lib/contracts/settings";
import { checkSettingsPatch, updateSettings } from "@/lib/server/settings/settings";

/** The admin every call acts as: who changed what is in the audit log, not under test here. */
export const ADMIN: Actor = { type: "user", id: null, label: "admin@example.com" };

// The body as a JSON client reads it; `any` as server.api's body is, so assertions read the same.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteAnswer = { status: number; body: any };

export async function callRoute<const C extends RouteContract>(
  contract: C,
  input: { query?: Record<string, string>; body?: unknown; checkBody?: (raw: unknown) => void },
  handler: (ctx: { query: QueryOf<C>; body: BodyOf<C> }) => Promise<ReplyOf<C>>,
): Promise<RouteAnswer> {
  try {
    const query = contract.query ? parseWith(contract.query, input.query ?? {}, "query") : undefined;
    let body: unknown;
    if (contract.body) {
      const raw = input.body ?? {};
      input.checkBody?.(raw);
      body = parseWith(contract.body, raw);
    }
    const reply = await handler({ query: query as QueryOf<C>, body: body as BodyOf<C> });
    const problem = replyProblem(contract, reply);
    if (problem) throw new Error(problem);
    return { status: contract.status ?? 200, body: JSON.parse(JSON.stringify(reply ?? null)) };
  } catch (err) {
    // Anything the API would answer as a generic 500 fails the test with its own message instead.
    if (!(knownError(err) instanceof ApiError)) throw err;
    const r = errorReply(err);
    return { status: r.status, body: r.body };
  }
}

/** PATCH /api/v1/settings as its route answers it (the raw body checked first, then parsed). */
export const patchSettings = (body: unknown) =>
  callRoute(settingsRoutes.update, { body, checkBody: checkSettingsPatch }, ({ body }) => updateSettings(ADMIN, body));
