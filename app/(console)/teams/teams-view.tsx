"use client";

import { useState } from "react";
import { useTeams, type Team } from "@/lib/client/teams";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { TeamCard } from "@/components/settings/team-card";
import { TeamDialog } from "@/components/settings/team-dialog";

/**
 * Teams: who sees and acts on which clusters, by a label selector each. A fleet admin creates,
 * edits and deletes them; a team's admins manage its members; everyone else reads (the API
 * refuses the rest regardless).
 */
export function TeamsView({ fleetAdmin, adminOf }: { fleetAdmin: boolean; adminOf: readonly string[] }) {
  const teams = useTeams();
  // null: closed; "new": creating; a team: editing it
  const [editing, setEditing] = useState<Team | "new" | null>(null);
  return (
    <Card
      title={<span id="teams">{fleetAdmin ? "Teams" : "Your teams"}</span>}
      action={
        fleetAdmin ? (
          <Button className="h-8" onClick={() => setEditing("new")}>
            New team
          </Button>
        ) : undefined
      }
    >
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        Give a team its clusters without giving it the fleet. Someone with the fleet role <strong>none</strong> sees only their
        teams&apos; clusters, with their role in each team; labels a scope reads are locked for them. A team&apos;s admins manage
        its members, tokens and webhooks.
      </p>
      {teams.isPending ? (
        <TableSkeleton rows={2} label="Loading teams" />
      ) : teams.isError ? (
        <ErrorState title="Could not load teams" message={teams.error.message} onRetry={() => void teams.refetch()} />
      ) : teams.data.length === 0 ? (
        <EmptyState title="No teams yet">
          A team is a label selector, such as team=payments, and its members. New clusters carrying those labels join it by
          themselves.{fleetAdmin ? "" : " A fleet admin creates teams."}
        </EmptyState>
      ) : (
        <div className="space-y-4">
          {teams.data.map((t) => (
            <TeamCard
              key={t.id}
              team={t}
              onEdit={fleetAdmin ? () => setEditing(t) : undefined}
              manageMembers={fleetAdmin || adminOf.includes(t.id)}
            />
          ))}
        </div>
      )}
      {editing && <TeamDialog team={editing === "new" ? null : editing} onClose={() => setEditing(null)} />}
    </Card>
  );
}
