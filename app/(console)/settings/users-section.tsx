"use client";

import { useState } from "react";
import { useCreatePasswordLink, useSettings, useUsers, type User } from "@/lib/client/settings";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TableSkeleton } from "@/components/ui/skeleton";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "@/components/ui/inline-error";
import { ErrorState } from "@/components/ui/states";
import { PasswordLinkReveal } from "@/components/settings/password-link-reveal";
import { AddUserDialog } from "@/components/settings/add-user-dialog";
import { DisableUserDialog } from "@/components/settings/disable-user-dialog";
import { UsersTable } from "@/components/settings/users-table";

/** The people who sign in to the console and their roles. */
export function UsersSection({ currentEmail }: { currentEmail: string | null }) {
  const users = useUsers();
  const ssoManagesRoles = Boolean(useSettings().data?.ssoRoleMapping);
  const [adding, setAdding] = useState(false);
  const [disabling, setDisabling] = useState<User | null>(null);
  const passwordLink = useCreatePasswordLink();
  const [linkFor, setLinkFor] = useState<User | null>(null);
  return (
    <Card
      title={<span id="users">Users</span>}
      action={
        <Button className="h-8" onClick={() => setAdding(true)}>
          Add user
        </Button>
      }
    >
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        Viewers read, operators run the fleet (tokens, groups, rollouts, deregistration), admins also manage settings, users and
        keys. The last active admin cannot be demoted or disabled.
      </p>
      {users.isPending ? (
        <TableSkeleton rows={3} label="Loading users" />
      ) : users.isError ? (
        <ErrorState title="Could not load users" message={users.error.message} onRetry={() => void users.refetch()} />
      ) : (
        <UsersTable
          users={users.data}
          currentEmail={currentEmail}
          onDisable={setDisabling}
          onPasswordLink={(user) => {
            setLinkFor(user);
            passwordLink.mutate(user.id);
          }}
          ssoManagesRoles={ssoManagesRoles}
        />
      )}
      {adding && <AddUserDialog onClose={() => setAdding(false)} />}
      {disabling && <DisableUserDialog user={disabling} onClose={() => setDisabling(null)} />}
      {linkFor && (
        <Dialog
          title={`Set-password link for ${linkFor.email}`}
          onClose={() => {
            setLinkFor(null);
            passwordLink.reset();
          }}
        >
          {passwordLink.data ? (
            <PasswordLinkReveal
              email={linkFor.email}
              link={passwordLink.data}
              onDone={() => {
                setLinkFor(null);
                passwordLink.reset();
              }}
            />
          ) : passwordLink.error ? (
            <InlineError error={passwordLink.error} />
          ) : (
            <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
              Making a link…
            </p>
          )}
        </Dialog>
      )}
    </Card>
  );
}
