import { DEFERRED_RESULT, explainRegistrationResult, PENDING_APPROVAL, type ProblemKind } from "@/lib/domain/registration-errors";
import { Badge, type Tone } from "@/components/ui/badge";

// By who has to act: amber for tokens (mint another), violet for agent configuration, red for
// certificates and the server, blue for the network (usually clears by itself).
const KIND_TONE: Record<ProblemKind, Tone> = {
  token: "amber",
  configuration: "violet",
  certificate: "red",
  network: "blue",
  server: "red",
};

/**
 * A registration result: "registered" for ok, "waiting for approval" for a registration an
 * operator has yet to decide, "deferred (overloaded)" for a refusal for load (the agent retries:
 * neither a refusal nor a failure), else its code, coloured by kind of problem.
 */
export function AttemptResultBadge({ result }: { result: string }) {
  const e = explainRegistrationResult(result);
  if (result === PENDING_APPROVAL)
    return (
      <Badge tone="blue" title={e.title}>
        <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current" />
        <span>waiting for approval</span>
      </Badge>
    );
  if (result === DEFERRED_RESULT)
    return (
      <Badge tone="neutral" title={e.title}>
        <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current" />
        <span>
          deferred (<span className="font-mono">{result}</span>)
        </span>
      </Badge>
    );
  return (
    <Badge tone={e.ok ? "green" : KIND_TONE[e.kind ?? "server"]} title={e.title}>
      <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current" />
      <span className={e.ok ? "" : "font-mono"}>{e.ok ? "registered" : result}</span>
    </Badge>
  );
}
