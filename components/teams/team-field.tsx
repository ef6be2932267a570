import type { ReactNode } from "react";
import { SelectField } from "@/components/ui/field";

/** A team to choose: its value (an id or a name, as the caller's API takes it) and its option's text. */
export type TeamOption = { value: string; label: string };

/** The value of the fleet's option and of the "choose a team" prompt (team ids and names are never empty). */
export const NO_TEAM = "";

/**
 * Whom something is made for: one of `teams`, or the fleet when `fleet` (its option's text) is
 * given. Nothing to choose, nothing shown: no teams leaves the fleet's (or the caller's) default.
 * One team and no fleet option: `note` stands in for the select when given (`null`: nothing);
 * left out, the select offers that one team. `placeholder` prompts for a choice (no fleet option).
 */
export function TeamField({
  id,
  label,
  hideLabel,
  teams,
  fleet,
  placeholder,
  note,
  value,
  onChange,
  hint,
  error,
  className,
}: {
  id: string;
  label: string;
  hideLabel?: boolean;
  teams: readonly TeamOption[];
  fleet?: string;
  placeholder?: string;
  note?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  hint?: ReactNode;
  error?: string | null;
  /** the select's classes, for a compact toolbar */
  className?: string;
}) {
  if (teams.length === 0) return null;
  if (teams.length === 1 && fleet === undefined && note !== undefined) return note;
  const first = fleet ?? placeholder;
  return (
    <SelectField
      id={id}
      label={label}
      hideLabel={hideLabel}
      value={value}
      options={first === undefined ? teams : [{ value: NO_TEAM, label: first }, ...teams]}
      onValueChange={onChange}
      hint={hint}
      error={error}
      className={className}
    />
  );
}
