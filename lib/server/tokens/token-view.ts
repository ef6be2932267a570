import "server-only";
import { tokenStatus, type AllowedLabels, type TokenStatus } from "@/lib/domain/tokens";
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
  createdAt: Date;
};

/** What the API shows of a token: never the secret or its hash. */
export type TokenView = {
  id: string;
  name: string;
  description: string | null;
  expiresAt: string;
  maxClusters: number;
  usedClusters: number;
  status: TokenStatus;
  allowedLabels: AllowedLabels | null;
  fixedLabels: Labels;
  revokedAt: string | null;
  /** A bound token registers only this cluster (re-enrolment, or claiming a pre-created one). */
  clusterId: string | null;
  createdAt: string;
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
    createdAt: t.createdAt.toISOString(),
  };
}
