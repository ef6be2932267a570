import type { AckCode } from "../../domain/agent-protocol";
import type { AckEntry } from "../cluster-backend";
import type { Directive } from "../directives";
import type { LogCode, LogFields, LogLevel } from "../log";
import { errorText, reasonText } from "../../domain/error-text";
import { KubeApiError } from "./kube-client";

/** Where a directive carried out in the cluster stands; acknowledged once done or failed. */
export type DirectiveState = { state: "running" } | { state: "done" } | { state: "failed"; reason: string; code?: AckCode };

export interface DirectiveRunsOptions {
  now: () => number;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
  /** One step of a running directive (idempotent: it is repeated until done or failed). */
  step: (d: Directive, startedAt: number) => Promise<DirectiveState>;
  /** false: running directives wait (unacknowledged, so the control plane repeats them). */
  mayAct?: () => boolean;
}

/**
 * The directives a cluster is carrying out, each moved on a step per round and acknowledged only
 * once done, or failed with its reason: the control plane repeats a directive until it is acked.
 */
export class DirectiveRuns {
  private readonly runs = new Map<string, { directive: Directive; status: DirectiveState; startedAt: number }>();
  private waitingLogged = false;

  constructor(private readonly o: DirectiveRunsOptions) {}

  /** Starts a directive (called once per id); progress() carries it on. */
  start(d: Directive) {
    if (this.runs.has(d.id)) return;
    this.runs.set(d.id, { directive: d, status: { state: "running" }, startedAt: this.o.now() });
  }

  /** Whether a directive of this type is running. */
  running(type: string): boolean {
    return [...this.runs.values()].some((d) => d.directive.type === type && d.status.state === "running");
  }

  /** Ends the running directives of this type as done (a cancelled deregistration ends its drain). */
  finish(type: string) {
    for (const entry of this.runs.values()) {
      if (entry.directive.type === type && entry.status.state === "running") entry.status = { state: "done" };
    }
  }

  /** Advances every running directive one step. */
  async progress(): Promise<void> {
    if (this.o.mayAct && !this.o.mayAct()) {
      if ([...this.runs.values()].some((e) => e.status.state === "running") && !this.waitingLogged) {
        this.waitingLogged = true;
        this.o.log("warn", "DIRECTIVE_WAITING", "directives wait until this agent holds its Lease again");
      }
      return;
    }
    this.waitingLogged = false;
    for (const entry of this.runs.values()) {
      if (entry.status.state !== "running") continue;
      try {
        entry.status = await this.o.step(entry.directive, entry.startedAt);
      } catch (err) {
        // An API failure is retried next heartbeat, except a refusal that will not change.
        if (err instanceof KubeApiError && (err.status === 403 || err.status === 404 || err.status === 422)) {
          entry.status = { state: "failed", reason: err.message };
        } else {
          this.o.log("warn", "KUBE_API_ERROR", `directive ${entry.directive.type} will be retried: ${errorText(err)}`, {
            id: entry.directive.id,
          });
        }
      }
      if (entry.status.state === "failed") {
        this.o.log(
          "warn",
          "DIRECTIVE_FAILED",
          `directive ${entry.directive.type} could not be carried out: ${entry.status.reason}`,
          {
            id: entry.directive.id,
          },
        );
      } else if (entry.status.state === "done") {
        this.o.log("info", "DIRECTIVE_DONE", `directive ${entry.directive.type} done`, { id: entry.directive.id });
      }
    }
  }

  /** The acks to send for these ids: running ones are held back, failed ones carry their reason. */
  ackEntries(ids: string[]): AckEntry[] {
    const out: AckEntry[] = [];
    for (const id of ids) {
      const entry = this.runs.get(id);
      if (!entry || entry.status.state === "done") out.push(id);
      else if (entry.status.state === "failed")
        out.push({
          id,
          ok: false,
          reason: (reasonText(entry.status.reason) || "failed").slice(0, 500),
          ...(entry.status.code ? { code: entry.status.code } : {}),
        });
    }
    return out;
  }
}
