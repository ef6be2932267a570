import type { ReactNode } from "react";

/**
 * The header row of a console table. `actions` adds a last column for row buttons, named
 * "Actions" for screen readers only.
 */
export function TableHead({ columns, actions = false }: { columns: readonly ReactNode[]; actions?: boolean }) {
  return (
    <thead className="bg-slate-50 text-xs tracking-wide text-slate-500 uppercase dark:bg-slate-800/50 dark:text-slate-400">
      <tr>
        {columns.map((column, i) => (
          <th key={i} scope="col" className="px-4 py-2.5 font-medium">
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col" className="px-4 py-2.5 font-medium">
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
