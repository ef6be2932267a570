"use client";

import { inputClass } from "@/components/ui/field";

/** A team the caller may start rollouts for (they operate in it). */
export type RolloutTeamChoice = { id: string; name: string };

/**
 * Whose rollout it is, for someone planning through their teams: the choice when they operate in
 * several, a note when in one; nothing for a fleet operator (the fleet's rollout).
 */
export function TeamPicker({
  teams,
  value,
  error,
  onChange,
}: {
  teams: RolloutTeamChoice[];
  value: string;
  error?: string;
  onChange: (teamId: string) => void;
}) {
  if (teams.length === 1)
    return (
      <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="rollout-team-note">
        A rollout of team {teams[0]!.name}: it upgrades only clusters in the team&apos;s scope.
      </p>
    );
  if (!teams.length) return null;
  return (
    <div className="space-y-1.5">
      <label htmlFor="rollout-team" className="block text-sm font-medium">
        Team
      </label>
      <select
        id="rollout-team"
        className={inputClass}
        value={value}
        aria-invalid={error ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">Choose a team</option>
        {teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
      {error ? (
        <p className="text-xs text-rose-600 dark:text-rose-400">{error}</p>
      ) : (
        <p className="text-xs text-slate-500 dark:text-slate-400">
          The rollout belongs to this team and upgrades only clusters in its scope.
        </p>
      )}
    </div>
  );
}
