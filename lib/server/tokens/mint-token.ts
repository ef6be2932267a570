import "server-only";
import type { MintTokenInput } from "@/lib/domain/tokens";
import { formatSelector, matchesSelector } from "@/lib/domain/selector";
import type { TeamGrant } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import { db, type Tx } from "@/lib/server/db/client";
import { randomId, randomSecret, sha256Hex } from "@/lib/server/auth/secrets";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { MintedToken } from "@/lib/contracts/tokens";
import { getSettings } from "@/lib/server/settings/settings";
import { tokenView } from "./token-view";

export const TOKEN_PREFIX = "frt";

/**
 * Mints a registration token: frt_<public id>_<secret>, 192 bits of secret. Only the secret's
 * SHA-256 is stored; the full token exists in this return value and nowhere else.
 */
export async function mintToken(actor: Actor, input: MintTokenInput, team: TeamGrant | null = null): Promise<MintedToken> {
  return db().$transaction((tx) => mintTokenIn(tx, actor, input, team));
}

/**
 * A team's token lands its clusters in the team's scope: its fixed labels must satisfy the scope
 * selector (registration checks each cluster's final labels again, for the terms an agent could
 * still break, such as `env!=prod`).
 */
function refuseOutsideTeamScope(team: TeamGrant, fixed: Record<string, string>): void {
  if (matchesSelector(fixed, team.selector)) return;
  const unmet = team.selector.filter((r) => !matchesSelector(fixed, [r]));
  throw new ApiError(
    "outside_team_scope",
    `A token of the team ${team.team} must fix labels that put its clusters in the team's scope (${formatSelector(team.selector)}); its fixed labels do not satisfy ${formatSelector(unmet)}.`,
    { teamScope: formatSelector(team.selector), unmet: unmet.map((r) => formatSelector([r])) },
  );
}

/**
 * The mint inside a caller's transaction (pre-creating a cluster mints its bound token in the
 * same one). A bound token (`clusterId`) names an existing cluster: 404 otherwise (and for a
 * team, one outside its scope reads the same). `team`: the team it is minted for (lib/server/teams/acting-team.ts).
 */
export async function mintTokenIn(
  tx: Tx,
  actor: Actor,
  input: MintTokenInput,
  team: TeamGrant | null = null,
): Promise<MintedToken> {
  const id = randomId(12);
  const secret = randomSecret(24);
  if (team) refuseOutsideTeamScope(team, input.fixedLabels ?? {});
  let boundTo: { id: string; name: string } | null = null;
  if (input.clusterId !== undefined) {
    const cluster = await tx.cluster.findUnique({
      where: { id: input.clusterId },
      select: { id: true, name: true, labels: { select: { key: true, value: true } } },
    });
    const inScope =
      !team || (cluster && matchesSelector(Object.fromEntries(cluster.labels.map((l) => [l.key, l.value])), team.selector));
    if (!cluster || !inScope) throw new ApiError("not_found", `No cluster with the id ${input.clusterId} to bind the token to.`);
    boundTo = { id: cluster.id, name: cluster.name };
  }
  const requireApproval = input.requireApproval ?? (await getSettings()).requireApprovalByDefault;
  const created = await tx.registrationToken.create({
    data: {
      id,
      name: input.name,
      description: input.description ?? null,
      secretHash: sha256Hex(secret),
      expiresAt: new Date(Date.now() + input.ttlSeconds * 1000),
      maxClusters: input.maxClusters,
      allowedLabels: input.allowedLabels ? JSON.stringify(input.allowedLabels) : null,
      fixedLabels: JSON.stringify(input.fixedLabels ?? {}),
      clusterId: boundTo?.id ?? null,
      requireApproval,
      createdById: actor.id,
      teamId: team?.teamId ?? null,
    },
  });
  await recordAudit(
    tx,
    actor,
    "token.mint",
    { type: "registrationToken", id },
    {
      name: input.name,
      ttlSeconds: input.ttlSeconds,
      maxClusters: input.maxClusters,
      allowedLabels: input.allowedLabels ?? "any",
      fixedLabels: input.fixedLabels ?? {},
      requireApproval,
      ...(team ? { team: team.team } : {}),
      ...(boundTo ? { boundToCluster: { id: boundTo.id, name: boundTo.name } } : {}),
    },
  );
  return { ...tokenView({ ...created, teamName: team?.team ?? null }), token: `${TOKEN_PREFIX}_${id}_${secret}` };
}
