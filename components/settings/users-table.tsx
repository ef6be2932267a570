"use client";

import { useState } from "react";
import { FLEET_ROLES, type FleetRole } from "@/lib/domain/roles";
import { useClearSignInLocks, useUpdateUser, type User } from "@/lib/client/settings";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { RelativeTime } from "@/components/ui/relative-time";
import { InlineError } from "@/components/ui/inline-error";
import { TableHead } from "@/components/ui/table-head";
import { RoleBadge } from "./role-badge";
import { ScrollRegion } from "@/components/ui/scroll-region";

function UserRow({
  user,
  isYou,
  onDisable,
  onPasswordLink,
  ssoManagesRoles,
}: {
  user: User;
  isYou: boolean;
  onDisable: (u: User) => void;
  onPasswordLink: (u: User) => void;
  ssoManagesRoles: boolean;
}) {
  const update = useUpdateUser();
  const unlock = useClearSignInLocks();
  // The select shows the role being saved right away; a refusal (e.g. the last admin) puts it back.
  const [pendingRole, setPendingRole] = useState<FleetRole | null>(null);
  const role = pendingRole ?? user.role;
  return (
    <>
      <tr data-user={user.email} className={user.disabled ? "text-slate-500 dark:text-slate-400" : ""}>
        <td className="max-w-72 px-4 py-2.5">
          <div className="truncate font-medium">
            {user.email}
            {isYou && <span className="ml-2 text-xs font-normal text-slate-500 dark:text-slate-400">(you)</span>}
          </div>
          {user.name && <div className="truncate text-xs text-slate-500 dark:text-slate-400">{user.name}</div>}
        </td>
        <td className="px-4 py-2">
          {user.sso && ssoManagesRoles ? (
            // The server refuses the edit too (409 role_managed_by_sso): the next sign-in would undo it.
            <span data-role-managed-by-sso className="flex flex-wrap items-center gap-2">
              <RoleBadge role={user.role} />
              <span className="text-xs text-slate-600 dark:text-slate-400">managed by SSO</span>
            </span>
          ) : (
            <>
              <label htmlFor={`role-${user.id}`} className="sr-only">
                Role of {user.email}
              </label>
              <select
                id={`role-${user.id}`}
                className={`${inputClass} h-8 w-32`}
                value={role}
                disabled={update.isPending}
                onChange={(e) => {
                  const next = e.target.value as FleetRole;
                  setPendingRole(next);
                  update.mutate({ id: user.id, patch: { role: next } }, { onSettled: () => setPendingRole(null) });
                }}
              >
                {FLEET_ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </>
          )}
        </td>
        <td className="px-4 py-2.5">
          <span className="flex flex-wrap items-center gap-2">
            {user.disabled ? <Badge tone="red">disabled</Badge> : <Badge tone="green">active</Badge>}
            {!user.passwordSet && !user.sso && !user.disabled && (
              <Badge tone="amber" title="Added with a set-password link they have not used yet">
                awaiting password
              </Badge>
            )}
            {user.lockedFrom.length > 0 && (
              // Too many wrong passwords from these addresses; from anywhere else they still sign in.
              <Badge tone="amber" title={`Sign-in locked from ${user.lockedFrom.join(", ")}`}>
                locked from {user.lockedFrom.length} address{user.lockedFrom.length === 1 ? "" : "es"}
              </Badge>
            )}
          </span>
        </td>
        <td className="px-4 py-2.5 tabular-nums">
          <RelativeTime iso={user.lastLoginAt} fallback="never" />
        </td>
        <td className="px-4 py-2.5 tabular-nums">
          <RelativeTime iso={user.createdAt} />
        </td>
        <td className="px-4 py-2 text-right">
          {user.lockedFrom.length > 0 && (
            <Button variant="ghost" className="h-8" disabled={unlock.isPending} onClick={() => unlock.mutate(user.id)}>
              Clear sign-in locks<span className="sr-only"> of {user.email}</span>
            </Button>
          )}
          {!user.sso && !user.disabled && !isYou && (
            // SSO users need no password; the server refuses it too (409 password_not_needed).
            <Button variant="ghost" className="h-8" onClick={() => onPasswordLink(user)}>
              Set-password link<span className="sr-only"> for {user.email}</span>
            </Button>
          )}
          {user.disabled ? (
            <Button
              variant="ghost"
              className="h-8"
              disabled={update.isPending}
              onClick={() => update.mutate({ id: user.id, patch: { disabled: false } })}
            >
              Enable<span className="sr-only"> {user.email}</span>
            </Button>
          ) : (
            // Nobody locks themselves out from here (the server also keeps the last admin).
            !isYou && (
              <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={() => onDisable(user)}>
                Disable<span className="sr-only"> {user.email}</span>
              </Button>
            )
          )}
        </td>
      </tr>
      {(update.error ?? unlock.error) && (
        <tr>
          <td colSpan={6} className="px-4 pb-3">
            <InlineError error={(update.error ?? unlock.error)!} />
          </td>
        </tr>
      )}
    </>
  );
}

/** People who sign in to the console, their role and whether they may sign in. */
export function UsersTable({
  users,
  currentEmail,
  onDisable,
  onPasswordLink,
  ssoManagesRoles,
}: {
  users: User[];
  currentEmail: string | null;
  onDisable: (u: User) => void;
  onPasswordLink: (u: User) => void;
  /** An SSO role mapping is configured: SSO users' roles come from the provider. */
  ssoManagesRoles: boolean;
}) {
  return (
    <ScrollRegion label="Users table" className="rounded-md border border-slate-200 dark:border-slate-800">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Console users</caption>
        <TableHead columns={["User", "Role", "Status", "Last sign-in", "Added"]} actions />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {users.map((u) => (
            <UserRow
              key={u.id}
              user={u}
              isYou={u.email === currentEmail}
              onDisable={onDisable}
              onPasswordLink={onPasswordLink}
              ssoManagesRoles={ssoManagesRoles}
            />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
