import "server-only";
import type { Labels } from "@/lib/domain/labels";
import type { Selector } from "@/lib/domain/selector";
import { storedScope } from "@/lib/domain/teams";
import { tokenStatus, type AllowedLabels } from "@/lib/domain/tokens";
import { ApiError } from "@/lib/server/api/errors";
import { digestsEqual, parseCredential, sha256Hex } from "@/lib/server/auth/secrets";
import { asDate } from "@/lib/server/db/driver-values";
import { columns, readOnDriver, sql } from "@/lib/server/db/sql";
import { TOKEN_PREFIX } from "@/lib/server/tokens/mint-token";
import { tokenExpired, tokenRevoked } from "@/lib/server/tokens/token-refusals";
import type { TokenRow as TokenViewRow } from "@/lib/server/tokens/token-view";

/** The registration token behind a request, as the later steps need it. */
export type RegistrationToken = {
  id: string;
  name: string;
  allowedLabels: AllowedLabels | null;
  fixedLabels: Labels;
  /** Bound token: registers only this cluster. */
  clusterId: string | null;
  /** Used up: still good for a kept-key re-registration, which consumes nothing. */
  exhausted: boolean;
  /** New clusters wait for an operator's approval (a registration request). */
  requireApproval: boolean;
  /**
   * Expired or revoked: only a token that requires approval gets this far, since its agent's
   * repeats are answered from their request (a revoked token's only with a denial); anything else
   * is refused token_expired or token_revoked.
   */
  expired: boolean;
  revoked: boolean;
  /** Minted by a team: its clusters must land in the team's scope (its selector as it is now). */
  team: { name: string; selector: Selector } | null;
};

/** Where a registration came from; tokenId is filled in as soon as the token is known, so a later failure can still be attributed to it. */
export type RegistrationTrace = { sourceAddress: string | null; tokenId?: string };

// Read in raw SQL on the driver: through Prisma (its models, or even its raw queries) the read costs
// several times as much of the main thread (its query compiler and result mapping), on every
// registration. The driver gives SQLite's dates as text: asDate reads both.
const tokens = columns("RegistrationToken", "t");
const teams = columns("Team", "tm");

/** The token as registration reads it: the columns the console shows, the secret's hash, and its team's scope. */
type TokenRow = Omit<TokenViewRow, "description" | "createdAt" | "requireApproval" | "teamName"> & {
  secretHash: string;
  /** Raw SQL: SQLite answers a boolean as 0 or 1. */
  requireApproval: boolean | number;
  teamId: string | null;
  /** Null when the token has no team, or its team is gone (then the token registers nothing). */
  teamName: string | null;
  teamSelector: string | null;
};

async function findToken(id: string): Promise<TokenRow | null> {
  const rows = await readOnDriver<TokenRow>(
    sql`SELECT ${tokens.list("id", "name", "secretHash", "expiresAt", "maxClusters", "usedClusters", "allowedLabels", "fixedLabels", "revokedAt", "clusterId", "requireApproval", "teamId")},
               ${teams("name")} AS "teamName", ${teams("selector")} AS "teamSelector"
        FROM ${tokens.table} LEFT JOIN ${teams.table} ON ${teams("id")} = ${tokens("teamId")}
        WHERE ${tokens("id")} = ${id}`,
  );
  const row = rows[0];
  return row ? { ...row, expiresAt: asDate(row.expiresAt)!, revokedAt: asDate(row.revokedAt) } : null;
}

/** The team a token lands its clusters in; a team that is gone (or a scope that no longer reads) lands none. */
function tokenTeam(row: TokenRow): RegistrationToken["team"] {
  if (!row.teamId) return null;
  const selector = row.teamName && row.teamSelector ? storedScope(row.teamSelector) : null;
  if (!selector) throw tokenRevoked();
  return { name: row.teamName!, selector };
}

const unknownToken = () => new ApiError("token_invalid", "The registration token is malformed or unknown.");

/** Checks the bearer token without consuming a use. Each failure has its own protocol code. */
export async function authenticateToken(bearer: string | null, now: Date, trace: RegistrationTrace): Promise<RegistrationToken> {
  if (!bearer) throw new ApiError("token_missing", "Send the registration token as 'Authorization: Bearer frt_...'.");
  const cred = parseCredential(bearer, TOKEN_PREFIX);
  if (!cred) throw unknownToken();
  const token = await findToken(cred.id);
  if (!token || !digestsEqual(sha256Hex(cred.secret), token.secretHash)) throw unknownToken();
  trace.tokenId = token.id;
  const status = tokenStatus(token, now);
  const requireApproval = Boolean(Number(token.requireApproval));
  if (status === "revoked" && !requireApproval) throw tokenRevoked();
  if (status === "expired" && !requireApproval) throw tokenExpired();
  return {
    id: token.id,
    name: token.name,
    allowedLabels: token.allowedLabels ? (JSON.parse(token.allowedLabels) as AllowedLabels) : null,
    fixedLabels: JSON.parse(token.fixedLabels) as Labels,
    clusterId: token.clusterId,
    // An expired token is not counted as used up: its uses no longer matter.
    exhausted: status === "exhausted",
    requireApproval,
    expired: status === "expired",
    revoked: status === "revoked",
    team: tokenTeam(token),
  };
}
