import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

export const inputClass =
  "h-9 w-full rounded-md border border-slate-300 bg-white px-3 text-sm shadow-sm placeholder:text-slate-400 focus:border-sky-500 dark:border-slate-700 dark:bg-slate-950 aria-[invalid=true]:border-rose-500";

type InputProps = InputHTMLAttributes<HTMLInputElement>;

/** The ids of a control's hint and error paragraphs, for aria-describedby (undefined: neither). */
const describedByOf = (id: string, hint: ReactNode, error: string | null | undefined) =>
  [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;

/** A control's hint and error beneath it, under the ids `describedByOf` names. */
function HintAndError({ id, hint, error }: { id: string; hint: ReactNode; error: string | null | undefined }) {
  return (
    <>
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-xs text-rose-600 dark:text-rose-400">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * A labelled input with optional hint and error, wired for screen readers. `renderInput` swaps
 * the plain `<input>` for another control (a combobox) that takes the same wired props.
 */
export function Field({
  id,
  label,
  hint,
  error,
  renderInput,
  ...input
}: InputProps & {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | null;
  renderInput?: (props: InputProps & { id: string }) => ReactNode;
}) {
  const wired = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedByOf(id, hint, error),
    className: inputClass,
    ...input,
  };
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {renderInput ? renderInput(wired) : <input {...wired} />}
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/**
 * A labelled select over fixed options, with an optional hint and error wired for screen readers.
 * `hideLabel` keeps the label for screen readers only (a compact toolbar).
 */
export function SelectField<T extends string | number>({
  id,
  label,
  hideLabel,
  hint,
  error,
  value,
  options,
  onValueChange,
  className = inputClass,
  ...select
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange"> & {
  id: string;
  label: string;
  hideLabel?: boolean;
  hint?: ReactNode;
  error?: string | null;
  value: T;
  options: readonly { value: T; label: string }[];
  onValueChange: (value: T) => void;
}) {
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className={hideLabel ? "sr-only" : "block text-sm font-medium"}>
        {label}
      </label>
      <select
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedByOf(id, hint, error)}
        className={className}
        value={value}
        onChange={(e) => onValueChange(options.find((o) => String(o.value) === e.target.value)!.value)}
        {...select}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/** A labelled checkbox with its hint beneath the label, wired for screen readers. */
export function CheckboxField({
  id,
  label,
  hint,
  checked,
  disabled,
  onCheckedChange,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onCheckedChange: (checked: boolean) => void;
}) {
  return (
    <label className="flex items-start gap-2 text-sm">
      <input
        id={id}
        type="checkbox"
        className="mt-0.5 h-4 w-4 rounded border-slate-300 accent-sky-600"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onCheckedChange(e.target.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      <span>
        <span className="font-medium">{label}</span>
        {hint && (
          <span id={`${id}-hint`} className="block text-xs text-slate-600 dark:text-slate-400">
            {hint}
          </span>
        )}
      </span>
    </label>
  );
}
