import "server-only";
import type { TokenView } from "@/lib/contracts/tokens";
import { tokenStatus, type AllowedLabels } from "@/lib/domain/tokens";
import type { Labels } from "@/lib/domain/labels";

export type TokenRow = {
  id: string;
  name: string;
  description: string | null;
  expiresAt: Date;
  maxClusters: number;
  usedClusters: number;
  allowedLabels: string | null;
  fixedLabels: string;
  revokedAt: Date | null;
  clusterId: string | null;
  requireApproval: boolean;
  createdAt: Date;
  /** The minting team's name (looked up beside the row); null: the fleet's, or a team since deleted. */
  teamName: string | null;
};

export function tokenView(t: TokenRow, now = new Date()): TokenView {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    expiresAt: t.expiresAt.toISOString(),
    maxClusters: t.maxClusters,
    usedClusters: t.usedClusters,
    status: tokenStatus(t, now),
    allowedLabels: t.allowedLabels ? (JSON.parse(t.allowedLabels) as AllowedLabels) : null,
    fixedLabels: JSON.parse(t.fixedLabels) as Labels,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    clusterId: t.clusterId,
    requireApproval: t.requireApproval,
    team: t.teamName,
    createdAt: t.createdAt.toISOString(),
  };
}
