import Link from "next/link";
import type { RegistrationRequest } from "@/lib/client/registration-requests";
import { FlagBadge } from "@/components/versions/flagged-clusters-table";

/** What the compatibility matrix says of a request's versions; nothing when they are fine. */
export function VersionFlags({ flags, className = "" }: { flags: RegistrationRequest["versionFlags"]; className?: string }) {
  if (!flags.length) return null;
  return (
    <span data-testid="version-flags" className={`flex flex-wrap gap-1.5 ${className}`}>
      {flags.map((f) => (
        <FlagBadge key={f} flag={f} />
      ))}
    </span>
  );
}

/** The groups a request's labels match, each linking to the clusters already in it; "none" said plainly. */
export function GroupLinks({ groups }: { groups: RegistrationRequest["joinsGroups"] }) {
  if (!groups.length) return <span className="text-slate-500 dark:text-slate-400">none</span>;
  return (
    <span data-testid="joins-groups">
      {groups.map((g, i) => (
        <span key={g.id}>
          {i > 0 && ", "}
          <Link
            href={`/clusters?group=${encodeURIComponent(g.id)}`}
            title={`The clusters in ${g.name} now`}
            className="text-sky-700 underline dark:text-sky-400"
          >
            {g.name}
          </Link>
        </span>
      ))}
    </span>
  );
}
