import "server-only";
import { parseSelector, SelectorError, selectorProblem, type Selector } from "@/lib/domain/selector";
import { ApiError } from "@/lib/server/api/errors";
import { log } from "@/lib/server/log";
import { processSingleton } from "@/lib/server/process-singletons";

// A group's selector as stored. Rows saved before the selector limits (lib/domain/selector.ts)
// may be over them, or otherwise unparseable: such a group is shown as invalid, matches no
// cluster wherever a group is evaluated (enrollment, policies, cluster pages), and is refused
// where a request names it (gate, cluster list, rollouts), until an operator fixes it.

export type StoredGroup = { id: string; name: string; selector: string };

/**
 * The parsed selector of a group, or null when it is invalid (then it matches nothing). Each
 * invalid group is logged once per process and selector text, not on every evaluation.
 */
export function usableGroupSelector(group: StoredGroup): Selector | null {
  try {
    return parseSelector(group.selector);
  } catch (err) {
    if (!(err instanceof SelectorError)) throw err;
    const seen = processSingleton("invalid-group-selectors", () => new Set<string>());
    const key = `${group.id}\n${group.selector}`;
    if (!seen.has(key)) {
      seen.add(key);
      log.warn("group has an invalid selector: it matches no cluster until it is fixed", {
        group: group.name,
        problem: err.message,
      });
    }
    return null;
  }
}

/** The selector of a group a request names; an invalid one is a 400 that says what to fix. */
export function requestedGroupSelector(group: StoredGroup, field = "group"): Selector {
  const problem = selectorProblem(group.selector);
  if (problem)
    throw new ApiError(
      "invalid_request",
      `Group ${group.name} has an invalid selector (${problem}); it matches no cluster until an operator fixes it.`,
      [{ field, message: `group ${group.name} has an invalid selector: ${problem}` }],
    );
  return parseSelector(group.selector);
}
