import { Badge, type Tone } from "./badge";

const TONE: Record<string, Tone> = {
  Ready: "green",
  NotReady: "red",
  Pending: "neutral",
  Draining: "amber",
  Deregistering: "violet",
  Provisioning: "blue",
};

const HINT: Record<string, string> = {
  Ready: "Heartbeats arriving within the threshold and the API server is not down",
  NotReady: "No heartbeat within the threshold, or the agent reports the API server down",
  Pending: "Registered; waiting for the first heartbeat (not the same as offline)",
  Draining: "Being drained before deregistration",
  Deregistering: "Being removed from the fleet",
  Provisioning: "Pre-created; waiting for an agent to claim it",
};

/** A cluster status as a coloured pill; the colour is never the only signal (the word is there). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={TONE[status] ?? "neutral"} title={HINT[status]}>
      <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current" />
      {status}
    </Badge>
  );
}
