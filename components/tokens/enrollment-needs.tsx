import Link from "next/link";

/**
 * What a registered cluster still needs to count as enrolled (and pass the change gate): the
 * enrollment checklist's items (lib/domain/enrollment.ts) in words, for the first run, before a
 * cluster exists to show its own checklist.
 */
export function EnrollmentNeeds({
  requiredLabels,
  headingLevel = 3,
}: {
  requiredLabels?: readonly string[];
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section aria-labelledby="enrollment-needs-title" data-testid="enrollment-needs" className="space-y-2 text-left">
      <Heading id="enrollment-needs-title" className="text-sm font-semibold">
        What enrollment needs
      </Heading>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Once registered and sending heartbeats, a cluster is enrolled (and passes the change gate) when it has:
      </p>
      <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700 dark:text-slate-300">
        <li>
          <span className="font-medium">Labels</span>:{" "}
          {requiredLabels === undefined ? (
            "the fleet's required labels"
          ) : requiredLabels.length ? (
            <>
              the required {requiredLabels.length === 1 ? "label" : "labels"}{" "}
              {requiredLabels.map((k, i) => (
                <span key={k}>
                  {i ? ", " : ""}
                  <code className="font-mono">{k}</code>
                </span>
              ))}
            </>
          ) : (
            "none are required"
          )}
          , each with a valid value.
        </li>
        <li>
          <span className="font-medium">A group</span> whose selector matches its labels — optional until the fleet has a{" "}
          <Link href="/groups" className="font-medium text-sky-700 underline dark:text-sky-400">
            group
          </Link>
          .
        </li>
        <li>
          <span className="font-medium">Policies synced</span>: the agent has applied what its groups’ policies ask for.
        </li>
        <li>
          <span className="font-medium">Logs and metrics</span> reporting from the cluster.
        </li>
      </ul>
    </section>
  );
}
