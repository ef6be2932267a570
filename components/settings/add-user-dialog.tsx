"use client";

import { useState, type FormEvent } from "react";
import { createUserSchema } from "@/lib/domain/users";
import { FLEET_ROLES, type FleetRole } from "@/lib/domain/roles";
import { useCreateUser } from "@/lib/client/settings";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { Field, SelectField } from "@/components/ui/field";
import type { CreatedUser } from "@/lib/contracts/users";
import { PasswordLinkReveal } from "./password-link-reveal";
import { ROLE_HINT } from "./role-badge";

/** 20 characters from a 56-letter alphabet without look-alikes: about 116 bits. */
function generatePassword(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint32Array(20));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

type Errors = Partial<Record<"email" | "name" | "password", string>>;

type FirstSignIn = "link" | "password";

/** Adds a person who signs in with email and password, with a role: they choose the password from a one-time link, or an admin types it. */
export function AddUserDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateUser();
  const [firstSignIn, setFirstSignIn] = useState<FirstSignIn>("link");
  const [created, setCreated] = useState<CreatedUser | null>(null);
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [shown, setShown] = useState(false);
  const [role, setRole] = useState<FleetRole>("viewer");
  const [errors, setErrors] = useState<Errors>({});

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = createUserSchema.safeParse({
      email,
      name: name.trim() || undefined,
      password: firstSignIn === "password" ? password : undefined,
      role,
    });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    create.mutate(parsed.data, { onSuccess: (user) => (user.passwordLink ? setCreated(user) : onClose()) });
  }

  if (created?.passwordLink) {
    return (
      <Dialog title={`${created.email} was added`} onClose={onClose}>
        <PasswordLinkReveal email={created.email} link={created.passwordLink} onDone={onClose} />
      </Dialog>
    );
  }

  return (
    <Dialog
      title="Add a user"
      description="They choose their own password from a one-time link you send them, or you type one and share it over a safe channel."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <div className="grid grid-cols-2 gap-4">
          <Field
            id="user-email"
            label="Email"
            type="email"
            autoComplete="off"
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={errors.email}
          />
          <Field
            id="user-name"
            label="Name (optional)"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.name}
          />
        </div>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">First sign-in</legend>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name="first-sign-in"
              value="link"
              className="mt-0.5"
              checked={firstSignIn === "link"}
              onChange={() => setFirstSignIn("link")}
            />
            <span>
              A set-password link{" "}
              <span className="text-slate-600 dark:text-slate-400">(recommended: nobody but them knows the password)</span>
            </span>
          </label>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name="first-sign-in"
              value="password"
              className="mt-0.5"
              checked={firstSignIn === "password"}
              onChange={() => setFirstSignIn("password")}
            />
            <span>A password I type now</span>
          </label>
        </fieldset>
        {firstSignIn === "password" && (
          <div className="space-y-1.5">
            <div className="flex items-end gap-2">
              <div className="flex-1">
                <Field
                  id="user-password"
                  label="Password"
                  type={shown ? "text" : "password"}
                  autoComplete="new-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  error={errors.password}
                />
              </div>
              <Button type="button" variant="secondary" onClick={() => setShown((s) => !s)} aria-pressed={shown}>
                {shown ? "Hide" : "Show"}
              </Button>
              <Button
                type="button"
                variant="secondary"
                onClick={() => {
                  setPassword(generatePassword());
                  setShown(true);
                }}
              >
                Generate
              </Button>
            </div>
            <p className="text-xs text-slate-500 dark:text-slate-400">At least 12 characters.</p>
          </div>
        )}
        <SelectField
          id="user-role"
          label="Role"
          value={role}
          options={FLEET_ROLES.map((r) => ({ value: r, label: r }))}
          onValueChange={setRole}
          hint={`${role}: ${ROLE_HINT[role]}.`}
        />
        <FormActions error={create.error} onCancel={onClose} pending={create.isPending} label="Add user" pendingLabel="Adding…" />
      </form>
    </Dialog>
  );
}
