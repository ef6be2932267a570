import type { ReactNode } from "react";

/** Term/description pairs in two aligned columns (the detail page's cards). */
export function DefinitionList({ items, termWidth = "9rem" }: { items: readonly [ReactNode, ReactNode][]; termWidth?: string }) {
  return (
    <dl className="grid gap-x-4 gap-y-2.5 text-sm" style={{ gridTemplateColumns: `${termWidth} minmax(0, 1fr)` }}>
      {items.map(([term, description], i) => (
        <div key={i} className="contents">
          <dt className="text-slate-500 dark:text-slate-400">{term}</dt>
          <dd className="min-w-0">{description}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Mono({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <span className="font-mono text-xs break-all" title={title}>
      {children}
    </span>
  );
}

export const Missing = ({ children = "—" }: { children?: ReactNode }) => (
  <span className="text-slate-500 dark:text-slate-400">{children}</span>
);
