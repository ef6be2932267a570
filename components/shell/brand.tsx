import Link from "next/link";

/** The product's name and mark, linking to the overview (sidebar on wide screens, header on narrow). */
export function Brand({ className = "" }: { className?: string }) {
  return (
    <Link
      href="/"
      prefetch={false}
      className={`flex min-w-0 items-center gap-2 text-base font-semibold tracking-tight ${className}`}
    >
      <span aria-hidden className="inline-block h-5 w-5 shrink-0 rounded bg-gradient-to-br from-sky-500 to-indigo-600" />
      <span className="truncate">Fleet Registry</span>
    </Link>
  );
}
