/** Where a directive carried out in the cluster stands; acknowledged once done or failed. */
export type DirectiveState = { state: "running" } | { state: "done" } | { state: "failed"; reason: string };
