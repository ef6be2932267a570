import { useId, type ReactNode } from "react";

/**
 * A chart with a name and a description for assistive technology, and optionally the numbers
 * as a visually hidden table. The fixed height keeps the page from jumping while the chart
 * measures itself on the client.
 */
export function ChartFigure({
  label,
  description,
  height,
  table,
  children,
}: {
  label: string;
  description: string;
  height: number;
  table?: { head: readonly string[]; rows: readonly (readonly string[])[] };
  children: ReactNode;
}) {
  const id = useId();
  return (
    <figure aria-label={label} aria-describedby={`${id}-desc`} className="m-0">
      <p id={`${id}-desc`} className="sr-only">
        {description}
      </p>
      <div className="text-xs text-slate-500 dark:text-slate-400" style={{ height }}>
        {children}
      </div>
      {/* Visually hidden in a box, not on the table itself: a table ignores a 1 px width and, wide
          as its content, made the page scroll sideways into blank space. */}
      {table && (
        <div className="sr-only">
          <table>
            <caption>{label}</caption>
            <thead>
              <tr>
                {table.head.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, i) => (
                <tr key={i}>
                  {row.map((cell, j) =>
                    j === 0 ? (
                      <th key={j} scope="row">
                        {cell}
                      </th>
                    ) : (
                      <td key={j}>{cell}</td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}
