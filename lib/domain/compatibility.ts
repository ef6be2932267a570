import { z } from "zod";
import shipped from "./compatibility-matrix.json";
import { assertRange, compare, parseVersion, satisfies } from "./semver";

const rangeSchema = z
  .string()
  .min(1)
  .max(200)
  .superRefine((r, ctx) => {
    try {
      assertRange(r);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
    }
  });
const versionSchema = z.string().refine((v) => parseVersion(v) !== null, "must be a semantic version");

/** Which agent versions this control plane accepts, and which Kubernetes versions each agent supports. */
export const compatibilityMatrixSchema = z
  .object({
    schemaVersion: z.literal(1),
    controlPlaneVersion: versionSchema,
    acceptedAgentVersions: rangeSchema,
    recommendedAgentVersion: versionSchema,
    agents: z
      .array(z.object({ agentVersions: rangeSchema, kubernetes: rangeSchema }).strict())
      .min(1)
      .max(100),
  })
  .strict();
export type CompatibilityMatrix = z.infer<typeof compatibilityMatrixSchema>;

/**
 * The matrix shipped with a build (lib/domain/compatibility-matrix.json): its control plane
 * version and its recommended agent are the build's own (package.json "version" and
 * "agentVersion", lib/build-version.ts), so the console never recommends an agent the build does
 * not ship. Admins may replace it.
 */
export function shippedMatrix(build: { version: string; agentVersion: string }): CompatibilityMatrix {
  return compatibilityMatrixSchema.parse({
    ...shipped,
    controlPlaneVersion: build.version,
    recommendedAgentVersion: build.agentVersion,
  });
}

export const VERSION_FLAGS = ["incompatible", "outdated", "unsupported-kubernetes"] as const;
export type VersionFlag = (typeof VERSION_FLAGS)[number];

export function agentAccepted(matrix: CompatibilityMatrix, agentVersion: string): boolean {
  return satisfies(agentVersion, matrix.acceptedAgentVersions);
}

/** What is wrong with a cluster's versions, if anything. */
export function versionFlags(
  matrix: CompatibilityMatrix,
  agentVersion: string | null,
  kubernetesVersion: string | null,
): VersionFlag[] {
  if (!agentVersion) return [];
  const flags: VersionFlag[] = [];
  if (!agentAccepted(matrix, agentVersion)) flags.push("incompatible");
  else if (parseVersion(agentVersion) && compare(agentVersion, matrix.recommendedAgentVersion) < 0) flags.push("outdated");
  if (kubernetesVersion) {
    const row = matrix.agents.find((a) => satisfies(agentVersion, a.agentVersions));
    if (!row || !satisfies(kubernetesVersion, row.kubernetes)) flags.push("unsupported-kubernetes");
  }
  return flags;
}
