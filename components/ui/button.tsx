import type { ComponentProps } from "react";

const VARIANTS = {
  primary: "bg-sky-700 text-white hover:bg-sky-800 disabled:bg-sky-700/50",
  secondary:
    "border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800",
  danger: "bg-rose-600 text-white hover:bg-rose-700 disabled:bg-rose-600/50",
  ghost: "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
} as const;

/** A button's look, for a link that acts as one (a download, a page to open). */
export function buttonClass(variant: keyof typeof VARIANTS = "primary", className = ""): string {
  return `inline-flex h-9 items-center justify-center gap-2 rounded-md px-3.5 text-sm font-medium transition-colors disabled:cursor-not-allowed ${VARIANTS[variant]} ${className}`;
}

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ComponentProps<"button"> & { variant?: keyof typeof VARIANTS }) {
  return <button className={buttonClass(variant, className)} {...props} />;
}
