"use client";

import { useState, type FormEvent } from "react";
import { SETTING_LABELS } from "@/lib/domain/settings";
import {
  DEFAULT_SSO_ROLE_CLAIM,
  formatRuleLines,
  NO_SSO_ROLE,
  parseRuleLines,
  SSO_DEFAULT_ROLES,
  ssoRoleMappingSchema,
  type SsoRoleMapping,
} from "@/lib/domain/sso-roles";
import { useSettings, useSettingSwitch, useUpdateSettings } from "@/lib/client/settings";
import { Card } from "@/components/ui/card";
import { CheckboxField, Field, inputClass, SelectField } from "@/components/ui/field";
import { SaveActions } from "@/components/ui/form-actions";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

type DefaultRole = SsoRoleMapping["defaultRole"];
const DEFAULT_ROLE_OPTIONS = SSO_DEFAULT_ROLES.map((r) => ({
  value: r,
  label: r === NO_SSO_ROLE ? "none: refuse sign-in" : r,
}));

type Provider = { name: string; issuer: string };

/**
 * Single sign-on: which provider, whether its emails are trusted, and the claim that sets SSO
 * users' roles at each sign-in.
 */
export function SsoSection({ provider }: { provider: Provider | null }) {
  const settings = useSettings();
  const providerName = provider?.name ?? null;
  return (
    <Card title={<span id="sso">Single sign-on</span>}>
      {!providerName ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Single sign-on is off. Set <code>OIDC_ISSUER</code>, <code>OIDC_CLIENT_ID</code> and <code>OIDC_CLIENT_SECRET</code> to
          offer it on the sign-in page (docs/integrations/oidc.md). A role mapping can be saved now and applies once it is on.
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
          <div className="space-y-6">
            {provider && <EmailTrust provider={provider} />}
            <MappingEditor current={settings.data.ssoRoleMapping} />
          </div>
        )}
      </div>
    </Card>
  );
}

/**
 * An email the provider does not mark `email_verified: true` never links or names an account,
 * unless an admin trusts this provider's emails (say, a directory where nobody picks their own).
 */
function EmailTrust({ provider }: { provider: Provider }) {
  const sameIssuer = (issuer: string) => issuer.replace(/\/+$/, "") === provider.issuer.replace(/\/+$/, "");
  const trust = useSettingSwitch(
    (s) => s.ssoTrustedEmailIssuer !== null && sameIssuer(s.ssoTrustedEmailIssuer),
    (on) => ({ ssoTrustedEmailIssuer: on ? provider.issuer : null }),
  );
  return (
    <div className="max-w-2xl space-y-2">
      <CheckboxField
        id="sso-trust-emails"
        label={SETTING_LABELS.ssoTrustedEmailIssuer}
        checked={trust.checked}
        disabled={trust.saving}
        onCheckedChange={trust.set}
        hint={
          <>
            Off, only an email {provider.name} marks verified (<code>email_verified</code>) links an existing account or names a
            new one. Turn on only if nobody at {provider.name} can choose an address that is not theirs.
          </>
        }
      />
      {trust.error ? <InlineError error={trust.error} /> : null}
    </div>
  );
}

function MappingEditor({ current }: { current: SsoRoleMapping | null }) {
  const update = useUpdateSettings();
  const [enabled, setEnabled] = useState(current !== null);
  const [claim, setClaim] = useState(current?.claim ?? DEFAULT_SSO_ROLE_CLAIM);
  const [rules, setRules] = useState(current ? formatRuleLines(current.rules) : "");
  const [defaultRole, setDefaultRole] = useState<DefaultRole>(current?.defaultRole ?? "viewer");
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
      <CheckboxField
        id="sso-mapping-on"
        label="Set SSO users’ roles from a claim"
        checked={enabled}
        onCheckedChange={(on) => {
          setEnabled(on);
          touched();
        }}
        hint="Re-evaluated at every SSO sign-in; while on, their roles cannot be changed here. Off, roles are set here and kept."
      />
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
            options={DEFAULT_ROLE_OPTIONS}
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
