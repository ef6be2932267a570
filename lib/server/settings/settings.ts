import "server-only";
import {
  crossSettingProblem,
  DEFAULT_SETTINGS,
  settingsPatchSchema,
  settingsSchema,
  type Settings,
  type SettingsPatch,
} from "@/lib/domain/settings";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { processSingleton } from "@/lib/server/process-singletons";
import { Snapshot } from "@/lib/server/cache/snapshot";
import { everywhere } from "@/lib/server/agent-port/workers/primary-calls";
import { ApiError } from "@/lib/server/api/errors";
import { fieldDetails } from "@/lib/server/api/read-body";

// Hot paths (heartbeats) read settings on every call: one shared snapshot keeps that off the
// database (one query per CACHE_MS, not one per caller) while other instances still see a change
// within about this time; while the database is away it keeps the settings read before.
const CACHE_MS = 2_000;
// One per process: the agent port's direct paths and the Next bundle load this module
// separately, and a change saved through one must reset what both read.
const snapshot = () => processSingleton("settings-cache", () => new Snapshot(loadSettings, CACHE_MS));

export function getSettings(): Promise<Settings> {
  return snapshot().get();
}

async function loadSettings(): Promise<Settings> {
  const rows = await db().setting.findMany();
  const stored: Record<string, unknown> = {};
  for (const row of rows) {
    try {
      stored[row.key] = JSON.parse(row.value);
    } catch {}
  }
  // A stored value that no longer validates falls back to its default rather than breaking reads.
  const value = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[]) {
    if (!(key in stored)) continue;
    const one = settingsSchema.shape[key].safeParse(stored[key]);
    if (one.success) (value as Record<string, unknown>)[key] = one.data;
  }
  return value;
}

export async function updateSettings(actor: Actor, patch: SettingsPatch): Promise<Settings> {
  const before = await getSettings();
  const next = settingsSchema.parse({ ...before, ...patch });
  // The patch alone was checked; a change to one side of a rule is checked against the other's value in force.
  const problem = crossSettingProblem(next);
  if (problem) throw new ApiError("invalid_request", problem.message, [problem]);
  const changed = (Object.keys(patch) as (keyof Settings)[]).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(next[k]));
  await db().$transaction(async (tx) => {
    for (const key of changed) {
      const value = JSON.stringify(next[key]);
      await tx.setting.upsert({ where: { key }, create: { key, value }, update: { value } });
    }
    if (changed.length) {
      await recordAudit(
        tx,
        actor,
        "settings.update",
        { type: "settings", id: "fleet" },
        {
          changes: Object.fromEntries(changed.map((k) => [k, { from: before[k], to: next[k] }])),
        },
      );
    }
  });
  invalidateSettings();
  return next;
}

/**
 * A refused patch in the Settings form's words (the route's `checkBody`): the message is the
 * sentences, each naming its setting by the label the form shows; `details` keep the machine
 * `field` each belongs to, which the form uses to put it under the right input.
 */
export function checkSettingsPatch(raw: unknown): void {
  const parsed = settingsPatchSchema.safeParse(raw);
  if (parsed.success) return;
  const details = fieldDetails(parsed.error);
  const sentences = details.map((d) => (d.message.endsWith(".") ? d.message : `${d.field}: ${d.message}.`));
  throw new ApiError("invalid_request", sentences.join(" "), details);
}

/** The cached settings read again on next use, in every process of this instance (agent-port workers too). */
const invalidateSettings = everywhere("invalidate-settings", () => snapshot().invalidate());
