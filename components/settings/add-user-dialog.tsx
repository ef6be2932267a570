"use client";

import { useState, type FormEvent } from "react";
import { createUserSchema } from "@/lib/domain/users";
import { ROLES, type Role } from "@/lib/domain/roles";
import { useCreateUser } from "@/lib/client/settings";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { Field, SelectField } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { ROLE_HINT } from "./role-badge";

/** 20 characters from a 56-letter alphabet without look-alikes: about 116 bits. */
function generatePassword(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint32Array(20));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

type Errors = Partial<Record<"email" | "name" | "password", string>>;

/** Adds a person who signs in with email and password, with a role. */
export function AddUserDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateUser();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [shown, setShown] = useState(false);
  const [role, setRole] = useState<Role>("viewer");
  const [errors, setErrors] = useState<Errors>({});

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = createUserSchema.safeParse({ email, name: name.trim() || undefined, password, role });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    create.mutate(parsed.data, { onSuccess: onClose });
  }

  return (
    <Dialog
      title="Add a user"
      description="Share the password with them over a safe channel; they can sign in at once."
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
        <SelectField
          id="user-role"
          label="Role"
          value={role}
          options={ROLES.map((r) => ({ value: r, label: r }))}
          onValueChange={setRole}
          hint={`${role}: ${ROLE_HINT[role]}.`}
        />
        {create.error && <InlineError error={create.error} />}
        <FormActions onCancel={onClose} pending={create.isPending} label="Add user" pendingLabel="Adding…" />
      </form>
    </Dialog>
  );
}
