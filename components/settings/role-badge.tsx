import type { Role } from "@/lib/domain/roles";
import { Badge, type Tone } from "@/components/ui/badge";

const TONE: Record<Role, Tone> = { admin: "violet", operator: "blue", viewer: "neutral" };

export function RoleBadge({ role }: { role: Role }) {
  return <Badge tone={TONE[role]}>{role}</Badge>;
}

export const ROLE_HINT: Record<Role, string> = {
  viewer: "read everything, change nothing (the pipeline gate needs only this)",
  operator: "also tokens, groups, policies, rollouts and the wizard",
  admin: "also settings, users, API keys and the compatibility matrix",
};
