"use client";

import { useState, type FormEvent } from "react";
import { ROLES, type Role } from "@/lib/domain/roles";
import { SETTING_LABELS } from "@/lib/domain/settings";
import {
  DEFAULT_SSO_ROLE_CLAIM,
  formatRuleLines,
  parseRuleLines,
  ssoRoleMappingSchema,
  type SsoRoleMapping,
} from "@/lib/domain/sso-roles";
import { useSettings, useUpdateSettings } from "@/lib/client/settings";
import { Card } from "@/components/ui/card";
import { Field, inputClass, SelectField } from "@/components/ui/field";
import { SaveActions } from "@/components/ui/form-actions";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r }));

/** Single sign-on: which provider, and the claim that sets SSO users' roles at each sign-in. */
export function SsoSection({ providerName }: { providerName: string | null }) {
  const settings = useSettings();
  return (
    <Card title={<span id="sso">Single sign-on</span>}>
      {!providerName ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Single sign-on is off. Set <code>OIDC_ISSUER</code>, <code>OIDC_CLIENT_ID</code> and <code>OIDC_CLIENT_SECRET</code> to
          offer it on the sign-in page (README, Plug it in). A role mapping can be saved now and applies once it is on.
        </p>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          People sign in with <strong>{providerName}</strong>. New ones are viewers unless a role mapping says otherwise.
        </p>
      )}
      <div className="mt-4">
        {settings.isPending ? (
          <Skeleton className="h-48" />
        ) : settings.isError ? (
          <ErrorState
            title="Could not load the role mapping"
            message={settings.error.message}
            onRetry={() => void settings.refetch()}
          />
        ) : (
          <MappingEditor current={settings.data.ssoRoleMapping} />
        )}
      </div>
    </Card>
  );
}

function MappingEditor({ current }: { current: SsoRoleMapping | null }) {
  const update = useUpdateSettings();
  const [enabled, setEnabled] = useState(current !== null);
  const [claim, setClaim] = useState(current?.claim ?? DEFAULT_SSO_ROLE_CLAIM);
  const [rules, setRules] = useState(current ? formatRuleLines(current.rules) : "");
  const [defaultRole, setDefaultRole] = useState<Role>(current?.defaultRole ?? "viewer");
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const touched = () => {
    setSaved(false);
    setProblem(null);
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    let mapping: SsoRoleMapping | null = null;
    if (enabled) {
      const parsed = parseRuleLines(rules);
      if ("problem" in parsed) return setProblem(parsed.problem);
      const checked = ssoRoleMappingSchema.safeParse({ claim, rules: parsed.rules, defaultRole });
      if (!checked.success) return setProblem(checked.error.issues[0]?.message ?? "The role mapping is not valid.");
      mapping = checked.data;
    }
    update.mutate({ ssoRoleMapping: mapping }, { onSuccess: () => setSaved(true) });
  }

  return (
    <form onSubmit={onSubmit} className="max-w-2xl space-y-4" noValidate aria-label={SETTING_LABELS.ssoRoleMapping}>
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          className="mt-0.5 h-4 w-4"
          checked={enabled}
          onChange={(e) => {
            setEnabled(e.target.checked);
            touched();
          }}
        />
        <span>
          <span className="font-medium">Set SSO users’ roles from a claim</span>
          <span className="block text-xs text-slate-500 dark:text-slate-400">
            Re-evaluated at every SSO sign-in; while on, their roles cannot be changed here. Off, roles are set here and kept.
          </span>
        </span>
      </label>
      {enabled && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field
            id="sso-claim"
            label="Role claim"
            value={claim}
            onChange={(e) => {
              setClaim(e.target.value);
              touched();
            }}
            hint="The ID token or userinfo claim to read: a string or a list (dotted paths reach nested claims)."
          />
          <SelectField
            id="sso-default-role"
            label="Role when no rule matches"
            value={defaultRole}
            options={ROLE_OPTIONS}
            onValueChange={(r) => {
              setDefaultRole(r);
              touched();
            }}
          />
          <div className="space-y-1.5 sm:col-span-2">
            <label htmlFor="sso-rules" className="block text-sm font-medium">
              Rules
            </label>
            <textarea
              id="sso-rules"
              rows={4}
              className={`${inputClass} h-auto py-2 font-mono`}
              value={rules}
              placeholder={"platform-admins = admin\nplatform-ops = operator"}
              aria-describedby="sso-rules-hint"
              onChange={(e) => {
                setRules(e.target.value);
                touched();
              }}
            />
            <p id="sso-rules-hint" className="text-xs text-slate-500 dark:text-slate-400">
              One <code>claim value = role</code> a line. A person whose claim holds several values gets the highest role (admin,
              then operator, then viewer).
            </p>
          </div>
        </div>
      )}
      {problem ? <InlineError message={problem} /> : update.error ? <InlineError error={update.error} /> : null}
      <SaveActions pending={update.isPending} label="Save role mapping" saved={saved} />
    </form>
  );
}
