import type { FleetRole } from "@/lib/domain/roles";
import { Badge, type Tone } from "@/components/ui/badge";

const TONE: Record<FleetRole, Tone> = { admin: "violet", operator: "blue", viewer: "neutral", none: "neutral" };

export function RoleBadge({ role }: { role: FleetRole }) {
  return <Badge tone={TONE[role]}>{role}</Badge>;
}

export const ROLE_HINT: Record<FleetRole, string> = {
  viewer: "read everything, change nothing (the pipeline gate needs only this)",
  operator: "also tokens, groups, policies, rollouts and the wizard",
  admin: "also settings, users, API keys and the compatibility matrix",
  none: "no fleet role: only the clusters of their teams, with their role in each team",
};
