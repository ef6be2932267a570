"use client";

import Link from "next/link";
import { useMyAccess, type MyAccess, type TeamGrantWhy } from "@/lib/client/access";
import { reachOf } from "@/lib/contracts/role-reach";
import { ROLES } from "@/lib/domain/roles";
import { RoleReachList } from "@/components/access/role-reach-list";
import { AccessSkeleton } from "@/components/access/access-skeleton";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState, ErrorState } from "@/components/ui/states";

const LINK = "font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-400";

/** "Your access": the fleet role, each team and how it was granted, and what each role reaches. */
export function AccessView() {
  const access = useMyAccess();
  if (access.isPending) return <AccessSkeleton />;
  if (access.isError)
    return <ErrorState title="Could not load your access" message={access.error.message} onRetry={() => void access.refetch()} />;
  const a = access.data;
  return (
    <div className="space-y-6">
      <FleetRole access={a} />
      <Teams access={a} />
    </div>
  );
}

function FleetRole({ access: a }: { access: MyAccess }) {
  const role = a.fleet.role;
  return (
    <Card title="Across the fleet">
      <div className="space-y-3 text-sm">
        {role ? (
          <>
            <p>
              <Badge tone="blue">fleet {role}</Badge> <span className="text-slate-700 dark:text-slate-300">{a.fleet.why}</span>
            </p>
            <p className="text-slate-600 dark:text-slate-400">You see every cluster of the fleet. As fleet {role} you can:</p>
            <RoleReachList actions={reachOf(a.actions, role, "fleet")} label={`What fleet ${role} allows`} />
          </>
        ) : (
          <div data-testid="no-fleet-role">
            <EmptyState title="No fleet role">{a.fleet.why}</EmptyState>
          </div>
        )}
      </div>
    </Card>
  );
}

function Teams({ access: a }: { access: MyAccess }) {
  // The team roles held, highest first, each explained once however many teams give it.
  const held = ROLES.filter((r) => a.teams.some((t) => t.role === r)).reverse();
  const fleetOnly = a.actions.filter((x) => !x.teams);
  return (
    <Card title="Your teams">
      <div className="space-y-4 text-sm">
        {a.teams.length === 0 ? (
          <div data-testid="no-teams">
            <EmptyState title="You are in no team">
              {a.fleet.role
                ? "Your fleet role already reaches every cluster; teams give people without one a part of the fleet."
                : "A fleet admin or a team's admin can add you, or an SSO group you are in, to a team."}
              {a.ssoGroups.length > 0 && <> No team names your SSO groups ({a.ssoGroups.join(", ")}).</>}
            </EmptyState>
          </div>
        ) : (
          <>
            <ul className="space-y-3" aria-label="Your teams">
              {a.teams.map((t) => (
                <li key={t.id} className="rounded-md border border-slate-200 p-3 dark:border-slate-800" data-testid="access-team">
                  <div className="flex flex-wrap items-center gap-2">
                    <h3 className="font-semibold">{t.name}</h3>
                    <Badge tone="violet">team {t.role}</Badge>
                  </div>
                  {t.description && <p className="mt-1 text-slate-600 dark:text-slate-400">{t.description}</p>}
                  <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
                    <dt className="text-slate-500 dark:text-slate-400">Granted</dt>
                    <dd>
                      <ul>
                        {t.grants.map((g, i) => (
                          <li key={i}>{grantText(g)}</li>
                        ))}
                      </ul>
                    </dd>
                    <dt className="text-slate-500 dark:text-slate-400">Scope</dt>
                    <dd>
                      <code className="rounded bg-slate-100 px-1 py-0.5 text-xs dark:bg-slate-800">{t.selector}</code>{" "}
                      <Link href={`/clusters?${new URLSearchParams({ selector: t.selector })}`} className={LINK}>
                        matches {t.clusters.toLocaleString("en-US")} cluster{t.clusters === 1 ? "" : "s"} now
                      </Link>
                    </dd>
                  </dl>
                </li>
              ))}
            </ul>
            {a.ssoGroups.length > 0 && (
              <p className="text-slate-600 dark:text-slate-400">
                Your SSO groups at your last sign-in: {a.ssoGroups.join(", ")}.
              </p>
            )}
            {held.map((role) => (
              <section key={role} aria-labelledby={`team-role-${role}`} className="space-y-2">
                <h3 id={`team-role-${role}`} className="font-semibold">
                  As team {role}, on your team&apos;s clusters and what the team owns, you can:
                </h3>
                <RoleReachList actions={reachOf(a.actions, role, "team")} label={`What team ${role} allows`} />
              </section>
            ))}
            {!a.fleet.role && (
              <section aria-labelledby="fleet-only" className="space-y-2">
                <h3 id="fleet-only" className="font-semibold">
                  Only a fleet role reaches these
                </h3>
                <RoleReachList actions={fleetOnly} label="What needs a fleet role" />
              </section>
            )}
          </>
        )}
      </div>
    </Card>
  );
}

function grantText(g: TeamGrantWhy): string {
  switch (g.via) {
    case "user":
      return `you are a member, as ${g.role}`;
    case "ssoGroup":
      return `through the SSO group ${g.group}, as ${g.role}`;
    case "apiKey":
      return g.cappedTo
        ? `this API key is a member as ${g.role}, capped to ${g.cappedTo} by its creator's own access to the team`
        : `this API key is a member, as ${g.role}`;
  }
}
