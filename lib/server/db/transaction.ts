import "server-only";
import { log } from "@/lib/server/log";
import { db, type Tx } from "./client";

/** An effect that may only happen once the data it describes is committed (cache invalidation, a publish). */
export type Effect = () => void | Promise<void>;
export type AfterCommit = (effect: Effect) => void;

/**
 * Runs `work` in one database transaction. Effects queued with `afterCommit` (by `work` or the
 * helpers it calls, such as changePhase and revokeCertificates) run in order once the transaction
 * has committed, and never when it rolls back: nobody hears of a change that did not happen, and
 * no cache is refreshed before the change is visible. The data is committed by then, so a failing
 * effect is logged and the others still run.
 */
export async function inTransaction<T>(work: (tx: Tx, afterCommit: AfterCommit) => Promise<T>): Promise<T> {
  return withAfterCommit((afterCommit) => db().$transaction((tx) => work(tx, afterCommit)));
}

/**
 * The same promise for work that commits by itself (one statement, or its own transaction):
 * effects queued with `afterCommit` run once `work` has succeeded, never when it failed.
 */
export async function withAfterCommit<T>(work: (afterCommit: AfterCommit) => Promise<T>): Promise<T> {
  const effects: Effect[] = [];
  const result = await work((effect) => effects.push(effect));
  for (const effect of effects) {
    try {
      await effect();
    } catch (err) {
      log.error("after-commit effect failed", { error: String(err) });
    }
  }
  return result;
}
