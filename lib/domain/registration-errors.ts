// What each registration result means, in plain words, for the attempts log in the console, for
// the docs and for the agent's own log line: what kind of problem it is, what went wrong, and what
// to do about it. One table, so the console, the docs and the agent cannot drift apart. Codes are
// the agent protocol's (docs/protocol.md).

/** Who has to act: a token problem is fixed in the console, a certificate problem in the agent. */
export type ProblemKind = "token" | "certificate" | "configuration" | "network" | "server";

export const PROBLEM_KINDS: readonly ProblemKind[] = ["token", "configuration", "certificate", "network", "server"];

export const PROBLEM_KIND_LABEL: Record<ProblemKind, string> = {
  token: "Token problem",
  certificate: "Certificate problem",
  configuration: "Configuration problem",
  network: "Network problem",
  server: "Server problem",
};

export type RegistrationOutcome = {
  /** The result code as recorded: "ok" or a protocol error code. */
  code: string;
  ok: boolean;
  /** null for a success. */
  kind: ProblemKind | null;
  /** A few words, for a badge or a heading. */
  title: string;
  /** What happened, in one sentence. */
  meaning: string;
  /** What to do next, in one sentence (empty for a success). */
  action: string;
};

type Entry = Omit<RegistrationOutcome, "code" | "ok"> & {
  /**
   * The same advice as the agent logs it when the server refuses its registration with this code:
   * addressed to whoever runs the agent, in terms of its flags (lib/agent/errors.ts). Absent for
   * codes the agent treats by their HTTP status (a retry), or words for its other requests too.
   */
  agent?: string;
};

const OK: Entry = {
  kind: null,
  title: "Registered",
  meaning: "The cluster joined the fleet and received its client certificate.",
  action: "",
};

/** Not a failure: the token requires approval, and the request waits for an operator (a 202). */
export const PENDING_APPROVAL = "pending_approval";

const PENDING: Entry = {
  kind: null,
  title: "Waiting for approval",
  meaning: "The registration was checked and now waits for an operator to approve or deny it.",
  action: "Approve or deny it under Registration requests; the agent asks again until then.",
};

// Keyed by code, in the order the filter lists them (the protocol's order).
const FAILURES = {
  invalid_request: {
    kind: "configuration",
    title: "Malformed request",
    meaning: "The agent sent a registration the server could not accept: a field is missing or has the wrong shape.",
    action:
      "Check the cluster name (lowercase letters, digits and '-', at most 63) and the label syntax, and use a supported agent version.",
  },
  invalid_csr: {
    kind: "certificate",
    title: "Certificate request rejected",
    meaning:
      "The agent's certificate signing request was unreadable, badly signed, used a key weaker than RSA 2048, or asked for CA or extra usages.",
    action: "Delete the agent's state directory so it makes a fresh key, and upgrade the agent if it keeps happening.",
    agent: "the server rejected the certificate signing request: this is an agent bug, please report it",
  },
  token_missing: {
    kind: "token",
    title: "No token sent",
    meaning: "The agent registered without a registration token.",
    action: "Give the agent a token: put it in the file named by --token-file (or the Secret in the manifest).",
    agent: "the server received no registration token: write the token to the file given with --token-file",
  },
  token_invalid: {
    kind: "token",
    title: "Unknown token",
    meaning: "The token is malformed, mistyped, or was never minted by this fleet.",
    action: "Copy the token again in full (it starts with frt_), or mint a new one — tokens are shown only once.",
    agent:
      "the registration token is not valid for this fleet (mistyped, truncated or from another server): mint a new token in the console and write it to --token-file",
  },
  token_expired: {
    kind: "token",
    title: "Token expired",
    meaning: "The token's lifetime ran out before the cluster registered.",
    action: "Mint a new token (with a longer TTL if installs take a while) and hand it to the agent.",
    agent: "the registration token has expired: mint a new token (longer TTL if needed) and write it to --token-file",
  },
  token_revoked: {
    kind: "token",
    title: "Token revoked",
    meaning: "Someone revoked this token, so it can no longer register clusters.",
    action: "Mint a new token if this cluster should join; if the revocation was deliberate, stop this agent.",
    agent: "the registration token was revoked by an operator: ask them to mint a new token and write it to --token-file",
  },
  token_exhausted: {
    kind: "token",
    title: "Token used up",
    meaning: "The token has already registered as many clusters as it allows.",
    action: "Mint a new token, or one with a higher max clusters for bulk installs.",
    agent:
      "the registration token has already registered its maximum number of clusters: mint a new token (or one with a higher max clusters)",
  },
  label_not_allowed: {
    kind: "configuration",
    title: "Label not allowed",
    meaning: "The agent asked for a label outside the token's allowed scope, or a different value for one the token fixes.",
    action: "Change the agent's --labels to fit the token's scope, or mint a token whose scope allows this label.",
    agent: "a label is outside the token's allowed label scope: change --labels, or mint a token whose scope allows it",
  },
  missing_required_labels: {
    kind: "configuration",
    title: "Required labels missing",
    meaning: "Even with the token's fixed labels, the cluster lacks labels every cluster in this fleet must carry.",
    action: "Add the missing labels to the agent's --labels, or mint a token that fixes them.",
    agent:
      "the fleet requires labels that neither --labels nor the token's fixed labels provide: add them with --labels key=value,...",
  },
  cluster_conflict: {
    kind: "configuration",
    title: "Name already taken",
    meaning:
      "The name belongs to another cluster and the request proved neither that cluster's key nor a token bound to it (a matching CA fingerprint is no proof), or that cluster is being deregistered, or registration requests for the name wait for approval and the token needs none.",
    action:
      "Pick a different --name; if this is that cluster, mint a re-enrolment token for it (Re-enrol on its page) and give it to the agent, or let its deregistration finish first; if requests for the name wait in Approvals, decide them first.",
    agent:
      'the name belongs to another cluster and this request proves neither its kept key nor a token bound to it (the CA fingerprint is no proof), or it is being deregistered, or registration requests for it wait for approval: choose another --name, or, if this is that cluster, have an admin mint a re-enrolment token (cluster page, "Re-enrol") and write it to --token-file',
  },
  registration_denied: {
    kind: "configuration",
    title: "Registration denied",
    meaning:
      "An operator denied this cluster's registration request (or approved another key's request for the name, or revoked its token); the agent was told the reason. The same key asking again for the name is refused for the denied-key cooldown, whatever the token.",
    action: "Read the reason in the request; if the cluster should join after all, register it again with a new key.",
    agent:
      "an operator denied this cluster's registration request in the console: the agent stops asking; if the cluster should join after all, mint a new token and write it to --token-file",
  },
  registration_request_expired: {
    kind: "configuration",
    title: "Approval request expired",
    meaning: "The registration request waited seven days without an operator's decision and expired.",
    action: "Ask an operator to watch Registration requests, then restart the agent's registration.",
    agent:
      "the registration request waited 7 days for an operator's approval and expired: the agent stops asking; mint a new token and write it to --token-file, then approve its request in the console",
  },
  payload_too_large: {
    kind: "configuration",
    title: "Request too large",
    meaning: "The registration request was over the 64 KiB limit, usually because of very many or very long labels.",
    action: "Trim the agent's labels; check the agent is the reference agent and not a misconfigured client.",
  },
  // Not in the protocol's list, but the server records it when a client sends something other
  // than JSON (a proxy rewriting the body, a hand-made curl call).
  unsupported_media_type: {
    kind: "configuration",
    title: "Not JSON",
    meaning: "The registration body was not sent as application/json.",
    action: "Use the reference agent, or send Content-Type: application/json; check no proxy rewrites the request.",
  },
  rate_limited: {
    kind: "network",
    title: "Too many attempts",
    meaning: "Too many registrations came from this network address in a short time, so the server asked it to wait.",
    action:
      "Nothing, if it clears up: agents retry after the Retry-After delay. Many clusters behind one NAT may need a higher limit.",
  },
  overloaded: {
    kind: "server",
    title: "Deferred (overloaded)",
    meaning:
      "The control plane was busy with other registrations or behind on heartbeats, so it asked the agent to come back after a short delay.",
    action:
      "Nothing, if the agent registers on a later try: it retries after the Retry-After delay. Many of them in a burst mean the signing limits are tight for the wave.",
  },
  internal: {
    kind: "server",
    title: "Server error",
    meaning: "The control plane failed while handling the registration; the agent did nothing wrong.",
    action: "The agent retries on its own. If it persists, check the server logs and database health.",
  },
  // Recorded, like internal, when the server could not do its part (a 503).
  database_unavailable: {
    kind: "server",
    title: "Database unavailable",
    meaning: "The control plane could not reach its database while handling the registration.",
    action: "The agent retries on its own. Check the database's health and the server's connection settings.",
  },
  unavailable: {
    kind: "server",
    title: "Server unavailable",
    meaning: "The control plane was not able to serve the registration at that moment.",
    action: "The agent retries on its own. If it persists, check the server logs and its load.",
  },
} as const satisfies Record<string, Entry>;

export type RegistrationErrorCode = keyof typeof FAILURES;

/** Every result the attempts log can hold, for filters: "ok" first, then the protocol's error codes. */
export const REGISTRATION_RESULTS: readonly string[] = ["ok", PENDING_APPROVAL, ...Object.keys(FAILURES)];

export const REGISTRATION_ERROR_CODES = Object.keys(FAILURES) as RegistrationErrorCode[];

export function isRegistrationErrorCode(code: string): code is RegistrationErrorCode {
  return Object.prototype.hasOwnProperty.call(FAILURES, code);
}

/**
 * The plain-words reading of a recorded result. Codes this console does not know (a newer
 * server, a transport error) still get an honest explanation rather than a blank.
 */
export function explainRegistrationResult(code: string): RegistrationOutcome {
  if (code === "ok") return { code, ok: true, ...OK };
  if (code === PENDING_APPROVAL) return { code, ok: false, ...PENDING };
  if (isRegistrationErrorCode(code)) {
    const { kind, title, meaning, action } = FAILURES[code];
    return { code, ok: false, kind, title, meaning, action };
  }
  return {
    code,
    ok: false,
    kind: "server",
    title: "Refused",
    meaning: `The server refused the registration with "${code}", a code this console does not describe.`,
    action: "Read the message recorded with the attempt, and check the agent and server versions match.",
  };
}

/** The agent's log advice for a registration refused with `code`, or null when the table has none. */
export function agentAdvice(code: string): string | null {
  if (!isRegistrationErrorCode(code)) return null;
  const entry: Entry = FAILURES[code];
  return entry.agent ?? null;
}

/**
 * How a recorded result counts against the registration objective: a `success`; a `refusal`,
 * where the server worked as designed and said no (an expired or used-up token, a missing label,
 * a bad CSR, a rate limit), which is shown beside the objective and never against it; or a
 * `failure` of the system itself (5xx, timeouts, server-side errors), the only thing the
 * objective counts. A registration `waiting` for an operator's approval is none of these: it
 * was accepted, and the decision is a person's. A code this console does not know counts as a
 * failure: an objective must not look better for a result nobody has classified.
 */
export type ObjectiveClass = "success" | "waiting" | "refusal" | "deferred" | "failure";

/** A registration refused for load (503 `overloaded`): the agent retries, and that try is recorded on its own. */
export const DEFERRED_RESULT = "overloaded";

export function objectiveClass(code: string): ObjectiveClass {
  if (code === "ok") return "success";
  // Neither a decision nor a failure: the server asked for the attempt again later.
  if (code === DEFERRED_RESULT) return "deferred";
  // Accepted and waiting for an operator's decision: nobody said no (yet), nothing failed.
  if (code === PENDING_APPROVAL) return "waiting";
  if (isRegistrationErrorCode(code)) return FAILURES[code].kind === "server" ? "failure" : "refusal";
  return "failure";
}

export type RegistrationTally = {
  total: number;
  succeeded: number;
  /** accepted and waiting for an operator's approval: neither refused nor failed, outside the rate */
  waiting: number;
  /** refused as designed: not counted against the objective */
  refused: number;
  /** failures of the system: the only thing the objective counts */
  failed: number;
  /** deferred for load (503 overloaded): the agent's retry is an attempt of its own, so these are outside the rate */
  deferred: number;
  /**
   * 1 - failed / (total - deferred - waiting), null without an attempt that was decided: refusals
   * are the server doing its job, and a deferred or waiting attempt decides nothing (yet).
   */
  successRate: number | null;
};

/** Attempts by result code, tallied for the objective. */
export function tallyRegistrations(byResult: Readonly<Record<string, number>>): RegistrationTally {
  const t = { total: 0, succeeded: 0, waiting: 0, refused: 0, failed: 0, deferred: 0 };
  for (const [code, n] of Object.entries(byResult)) {
    t.total += n;
    const c = objectiveClass(code);
    if (c === "success") t.succeeded += n;
    else if (c === "waiting") t.waiting += n;
    else if (c === "refusal") t.refused += n;
    else if (c === "deferred") t.deferred += n;
    else t.failed += n;
  }
  const decided = t.total - t.deferred - t.waiting;
  return { ...t, successRate: decided ? 1 - t.failed / decided : null };
}
