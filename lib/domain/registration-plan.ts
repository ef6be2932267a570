import { labelValue, missingRequiredLabels, type Labels } from "./labels";
import { reregistrationProof, type ReregistrationProof } from "./reregistration";
import { formatSelector, matchesSelector, type Selector } from "./selector";
import { labelOutsideScope, mergeFixedLabels, relabelForToken, type AllowedLabels } from "./tokens";

// What a registration will do, decided before anything is written (docs/protocol.md, "Register"):
// a new cluster, the claim of a pre-created one, or a re-registration, with its labels, its proof
// and whether it spends a token use; or why it is refused. Pure: the facts that need a lookup are
// asked for (`needs`) only when the decision depends on them.

/** The token as the plan sees it. */
export type PlanToken = {
  allowedLabels: AllowedLabels | null;
  fixedLabels: Labels;
  /** Bound token: registers only this cluster. */
  clusterId: string | null;
  /** Used up: still good for a kept-key re-registration, which consumes nothing. */
  exhausted: boolean;
  /** Minted by a team: every cluster it registers must be in that team's scope (its selector now). */
  team: { name: string; selector: Selector } | null;
};

/** The cluster already carrying the name. */
export type PlanCluster = { id: string; phase: string; labels: Labels };

export type PlanFacts<C extends PlanCluster> = {
  name: string;
  /** The labels the agent asked for. */
  requested: Labels;
  token: PlanToken;
  existing: C | null;
  /** Settings: labels every cluster must carry. */
  required: readonly string[];
  /** The name of the cluster a token is bound to (null: it no longer exists); asked for when the token is bound elsewhere. */
  boundClusterName?: string | null;
  /** The CSR's key is one the cluster may keep (lib/domain/reregistration.ts); asked for when the proof depends on it. */
  keptKey?: boolean;
};

export type RegistrationPlan<C extends PlanCluster = PlanCluster> =
  | { kind: "new"; labels: Labels; proof: null; consumesUse: true }
  | { kind: "claim"; existing: C; labels: Labels; proof: "boundToken"; consumesUse: true }
  | { kind: "reregister"; existing: C; labels: Labels; proof: ReregistrationProof; consumesUse: boolean };

export type PlanRefusal =
  | { code: "token_exhausted" }
  | {
      code: "cluster_conflict" | "label_not_allowed" | "missing_required_labels";
      message: string;
      details?: Record<string, unknown>;
    };

export type PlanDecision<C extends PlanCluster> =
  { plan: RegistrationPlan<C> } | { refused: PlanRefusal } | { needs: "boundClusterName" | "keptKey" };

class Refused {
  constructor(readonly refusal: PlanRefusal) {}
}

/** The plan for these facts, a refusal, or the one fact it still needs to decide. */
export function planRegistration<C extends PlanCluster>(f: PlanFacts<C>): PlanDecision<C> {
  try {
    return decide(f);
  } catch (err) {
    if (err instanceof Refused) return { refused: err.refusal };
    throw err;
  }
}

function decide<C extends PlanCluster>(f: PlanFacts<C>): PlanDecision<C> {
  const { token, existing, name } = f;
  if (token.clusterId && token.clusterId !== existing?.id) {
    if (f.boundClusterName === undefined) return { needs: "boundClusterName" };
    throw new Refused({
      code: "cluster_conflict",
      message: f.boundClusterName
        ? `This token is bound to the cluster ${f.boundClusterName} and registers only that name, not ${name}.`
        : `This token is bound to a cluster that no longer exists; it cannot register ${name}.`,
      details: { boundClusterId: token.clusterId },
    });
  }
  if (!existing) {
    if (token.exhausted) throw new Refused({ code: "token_exhausted" });
    return { plan: { kind: "new", labels: finalLabels(f, requestedLabels(f)), proof: null, consumesUse: true } };
  }
  if (existing.phase === "Deregistration" || existing.phase === "Draining") {
    throw conflict(`The cluster ${name} is being deregistered; finish or cancel that first.`);
  }
  if (existing.phase === "Provisioning") {
    if (!token.clusterId) {
      throw conflict(
        `The cluster ${name} was pre-created by an admin; it is claimed only with the token bound to it (minted with it, or by Re-enrol on its page).`,
      );
    }
    if (token.exhausted) throw new Refused({ code: "token_exhausted" });
    // The admin's presets win over the agent's labels; the token's fixed labels over both.
    const relabelled = relabelForToken(existing.labels, token, requestedLabels(f));
    if (relabelled.outside) throw notAllowed(relabelled.outside);
    return {
      plan: { kind: "claim", existing, labels: finalLabels(f, relabelled.labels), proof: "boundToken", consumesUse: true },
    };
  }
  const boundToCluster = token.clusterId === existing.id;
  // A bound token with a use left is proof enough: the key is looked up only when it can matter.
  const keptKeyMatters = !(boundToCluster && !token.exhausted);
  if (keptKeyMatters && f.keptKey === undefined) return { needs: "keptKey" };
  const decision = reregistrationProof({
    boundToCluster,
    tokenHasUses: !token.exhausted,
    keptKey: keptKeyMatters && !!f.keptKey,
  });
  if ("refused" in decision) {
    if (decision.refused === "token_exhausted") throw new Refused({ code: "token_exhausted" });
    throw conflict(
      `The name ${name} belongs to a registered cluster; registering it again needs the key of its current certificate or a token bound to it (Re-enrol on its page).`,
    );
  }
  // Sent labels are ignored: the cluster keeps its own (console edits stay), the token's fixed ones go over them.
  const relabelled = relabelForToken(existing.labels, token);
  if (relabelled.outside) throw notAllowed(relabelled.outside);
  return {
    plan: {
      kind: "reregister",
      existing,
      labels: finalLabels(f, relabelled.labels),
      proof: decision.proof,
      consumesUse: decision.consumesUse,
    },
  };
}

const conflict = (message: string) => new Refused({ code: "cluster_conflict", message });

function notAllowed(outside: { key: string; value: string }): Refused {
  return new Refused({
    code: "label_not_allowed",
    message: `The token does not allow the label ${outside.key}=${outside.value}.`,
    details: { label: outside.key, value: outside.value },
  });
}

/** The agent's labels against the token: inside its scope, and not fighting its fixed labels. */
function requestedLabels(f: PlanFacts<PlanCluster>): Labels {
  const outside = labelOutsideScope(f.requested, f.token.allowedLabels);
  if (outside) throw notAllowed(outside);
  const merged = mergeFixedLabels(f.requested, f.token.fixedLabels);
  if (merged.conflict) {
    throw new Refused({
      code: "label_not_allowed",
      message: `The token fixes the label ${merged.conflict}=${labelValue(f.token.fixedLabels, merged.conflict)}; do not ask for another value.`,
      details: { label: merged.conflict },
    });
  }
  return merged.labels;
}

/** A team's token never lands a cluster outside the team's scope, whatever the agent asks for. */
function inTeamScope(f: PlanFacts<PlanCluster>, labels: Labels): void {
  const team = f.token.team;
  if (!team || matchesSelector(labels, team.selector)) return;
  const unmet = team.selector.find((r) => !matchesSelector(labels, [r]))!;
  const value = labelValue(labels, unmet.key);
  throw new Refused({
    code: "label_not_allowed",
    message: `The token belongs to the team ${team.name}: its clusters must be in the team's scope, and ${formatSelector([unmet])} does not hold (${unmet.key} is ${value === undefined ? "not set" : value}).`,
    details: { label: unmet.key, ...(value === undefined ? {} : { value }), teamScope: formatSelector(team.selector) },
  });
}

/** The labels the cluster will carry, checked: inside the token's team's scope, none of the required ones missing. */
function finalLabels(f: PlanFacts<PlanCluster>, labels: Labels): Labels {
  inTeamScope(f, labels);
  const missing = missingRequiredLabels(labels, f.required);
  if (missing.length) {
    throw new Refused({
      code: "missing_required_labels",
      message: `The cluster lacks the required labels: ${missing.join(", ")}.`,
      details: { missing },
    });
  }
  return labels;
}
