import type { TokenStatus } from "@/lib/domain/tokens";
import { Badge, type Tone } from "@/components/ui/badge";

const TONE: Record<TokenStatus, Tone> = { active: "green", exhausted: "amber", expired: "neutral", revoked: "red" };
const HINT: Record<TokenStatus, string> = {
  active: "Can register clusters until it expires or is used up",
  exhausted: "Has registered as many clusters as it allows",
  expired: "Its lifetime ran out; agents using it are refused",
  revoked: "Revoked by an operator; agents using it are refused",
};

/** A registration token's status as a pill; the word is always there, colour is a second signal. */
export function TokenStatusBadge({ status }: { status: TokenStatus }) {
  return (
    <Badge tone={TONE[status]} title={HINT[status]}>
      <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current" />
      {status}
    </Badge>
  );
}
