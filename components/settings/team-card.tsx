"use client";

import { useState, type FormEvent } from "react";
import { TEAM_ROLES } from "@/lib/domain/teams";
import type { Role } from "@/lib/domain/roles";
import {
  useAddTeamMember,
  useDeleteTeam,
  useRemoveTeamMember,
  useUpdateTeamMember,
  type MemberInput,
  type Team,
  type TeamMember,
} from "@/lib/client/teams";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, SelectField } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { InlineError } from "@/components/ui/inline-error";
import { TableHead } from "@/components/ui/table-head";

const KIND_LABEL: Record<TeamMember["kind"], string> = { user: "User", apiKey: "API key", ssoGroup: "SSO group" };
const KIND_PLACEHOLDER: Record<MemberInput["kind"], string> = {
  user: "pat@example.com",
  apiKey: "the key's id (frk_<id>_…)",
  ssoGroup: "payments-engineers",
};
const ROLE_OPTIONS = TEAM_ROLES.map((r) => ({ value: r, label: r === "admin" ? "team admin" : r }));

function AddMemberForm({ team }: { team: Team }) {
  const add = useAddTeamMember();
  const [kind, setKind] = useState<MemberInput["kind"]>("user");
  const [value, setValue] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const id = (field: string) => `team-${team.id}-${field}`;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!value.trim()) return;
    add.mutate({ teamId: team.id, member: { kind, value: value.trim(), role } }, { onSuccess: () => setValue("") });
  }

  return (
    <form onSubmit={submit} noValidate className="mt-4 space-y-2" aria-label={`Add a member to ${team.name}`}>
      <div className="grid gap-3 sm:grid-cols-[9rem_1fr_9rem_auto] sm:items-end">
        <SelectField
          id={id("kind")}
          label="Member"
          value={kind}
          options={(["user", "apiKey", "ssoGroup"] as const).map((k) => ({ value: k, label: KIND_LABEL[k] }))}
          onValueChange={setKind}
        />
        <Field
          id={id("value")}
          label={kind === "user" ? "Email" : kind === "apiKey" ? "API key id" : "SSO group (claim value)"}
          placeholder={KIND_PLACEHOLDER[kind]}
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <SelectField id={id("role")} label="Role in the team" value={role} options={ROLE_OPTIONS} onValueChange={setRole} />
        <Button type="submit" disabled={add.isPending || !value.trim()}>
          {add.isPending ? "Adding…" : "Add"}
        </Button>
      </div>
      {add.error ? <InlineError error={add.error} /> : null}
    </form>
  );
}

function MemberRow({ team, member, manage }: { team: Team; member: TeamMember; manage: boolean }) {
  const update = useUpdateTeamMember();
  const remove = useRemoveTeamMember();
  const error = update.error ?? remove.error;
  return (
    <tr data-member={member.name}>
      <td className="px-4 py-2.5">
        <div className="font-medium break-all">{member.name}</div>
        {error ? <InlineError error={error} className="mt-1" /> : null}
      </td>
      <td className="px-4 py-2.5 text-slate-600 dark:text-slate-400">{KIND_LABEL[member.kind]}</td>
      {manage ? (
        <>
          <td className="px-4 py-2.5">
            <label className="sr-only" htmlFor={`member-${member.id}-role`}>
              Role of {member.name} in {team.name}
            </label>
            <select
              id={`member-${member.id}-role`}
              value={member.role}
              disabled={update.isPending}
              onChange={(e) => update.mutate({ teamId: team.id, memberId: member.id, role: e.target.value as Role })}
              className="h-8 rounded-md border border-slate-300 bg-white px-2 text-sm dark:border-slate-700 dark:bg-slate-950"
            >
              {ROLE_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </td>
          <td className="px-4 py-2.5 text-right">
            <Button
              variant="ghost"
              className="h-8"
              disabled={remove.isPending}
              aria-label={`Remove ${member.name} from ${team.name}`}
              onClick={() => remove.mutate({ teamId: team.id, memberId: member.id })}
            >
              {remove.isPending ? "Removing…" : "Remove"}
            </Button>
          </td>
        </>
      ) : (
        <td className="px-4 py-2.5" colSpan={2}>
          {ROLE_OPTIONS.find((o) => o.value === member.role)?.label ?? member.role}
        </td>
      )}
    </tr>
  );
}

/** Deleting a team: with members, the admin types its name (its members lose what it gives them). */
function DeleteTeamDialog({ team, onClose }: { team: Team; onClose: () => void }) {
  const remove = useDeleteTeam();
  const [typed, setTyped] = useState("");
  const needsName = team.members.length > 0;
  function submit(e: FormEvent) {
    e.preventDefault();
    remove.mutate({ id: team.id, confirm: needsName ? typed : undefined }, { onSuccess: onClose });
  }
  return (
    <Dialog
      title={`Delete team ${team.name}?`}
      description={
        needsName
          ? `${team.members.length} member${team.members.length === 1 ? "" : "s"} lose what this team gives them. Its clusters stay in the fleet.`
          : "It has no members. Its clusters stay in the fleet."
      }
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        {needsName && (
          <Field
            id="delete-team-name"
            label={`Type ${team.name} to confirm`}
            value={typed}
            autoFocus
            onChange={(e) => setTyped(e.target.value)}
          />
        )}
        <FormActions
          error={remove.error}
          onCancel={onClose}
          pending={remove.isPending}
          variant="danger"
          disabled={needsName && typed !== team.name}
          label="Delete team"
          pendingLabel="Deleting…"
        />
      </form>
    </Dialog>
  );
}

/**
 * One team: its scope and clusters, its members with their roles; adding and removing members for
 * those who manage them (`manageMembers`), editing and deleting the team for a fleet admin (`onEdit`).
 */
export function TeamCard({ team, onEdit, manageMembers }: { team: Team; onEdit?: () => void; manageMembers: boolean }) {
  const [deleting, setDeleting] = useState(false);
  const more = team.clusters.count - team.clusters.names.length;
  return (
    <section
      aria-labelledby={`team-${team.id}-title`}
      data-team={team.name}
      className="rounded-lg border border-slate-200 dark:border-slate-800"
    >
      <header className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-200 px-4 py-3 dark:border-slate-800">
        <div className="min-w-0">
          <h3 id={`team-${team.id}-title`} className="font-semibold">
            {team.name}
          </h3>
          {team.description && <p className="text-sm text-slate-600 dark:text-slate-400">{team.description}</p>}
          <p className="mt-1 text-sm">
            Scope <code className="rounded bg-slate-100 px-1 font-mono text-xs dark:bg-slate-800">{team.selector}</code>{" "}
            <Badge tone={team.clusters.count ? "blue" : "amber"}>
              {team.clusters.count.toLocaleString("en-US")} cluster{team.clusters.count === 1 ? "" : "s"}
            </Badge>
          </p>
          {team.clusters.names.length > 0 && (
            <p className="mt-1 truncate text-xs text-slate-500 dark:text-slate-400">
              {team.clusters.names.join(", ")}
              {more > 0 ? `, and ${more.toLocaleString("en-US")} more` : ""}
            </p>
          )}
        </div>
        {onEdit && (
          <div className="flex gap-2">
            <Button variant="secondary" className="h-8" onClick={onEdit} aria-label={`Edit team ${team.name}`}>
              Edit
            </Button>
            <Button variant="ghost" className="h-8" onClick={() => setDeleting(true)} aria-label={`Delete team ${team.name}`}>
              Delete
            </Button>
          </div>
        )}
      </header>
      <div className="px-4 pb-4">
        {team.members.length === 0 ? (
          <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">
            No members yet: add people, API keys or SSO groups, and at least one team admin to manage them.
          </p>
        ) : (
          <div className="mt-4 overflow-x-auto rounded-md border border-slate-200 dark:border-slate-800">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Members of {team.name}</caption>
              <TableHead columns={["Member", "Kind", "Role"]} actions={manageMembers} />
              <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                {team.members.map((m) => (
                  <MemberRow key={m.id} team={team} member={m} manage={manageMembers} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {manageMembers && <AddMemberForm team={team} />}
      </div>
      {deleting && <DeleteTeamDialog team={team} onClose={() => setDeleting(false)} />}
    </section>
  );
}
