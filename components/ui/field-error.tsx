import { inputClass } from "./field";

/** The error line under a control; its id is what the control's aria-describedby points at. */
export function FieldError({ id, message }: { id: string; message?: string | null }) {
  if (!message) return null;
  return (
    <p id={id} className="text-xs text-rose-600 dark:text-rose-400">
      {message}
    </p>
  );
}

export const selectClass =
  "h-9 rounded-md border border-slate-300 bg-white px-2 text-sm shadow-sm focus:border-sky-500 dark:border-slate-700 dark:bg-slate-950";

/** The shared input look without its full width, for inputs sized by their row. */
export const rowInputClass = inputClass.replace("w-full ", "");
