import type { ReactNode } from "react";

/**
 * A box that scrolls sideways when its content (usually a table) is wider than the screen. It is
 * a named region and takes keyboard focus, so someone without a pointer can scroll it with the
 * arrow keys (axe: scrollable-region-focusable).
 */
export function ScrollRegion({ label, className = "", children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={`overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 ${className}`}
    >
      {children}
    </div>
  );
}
