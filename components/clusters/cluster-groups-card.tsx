import Link from "next/link";
import type { ClusterDetail } from "@/lib/client/clusters";
import { Card } from "@/components/ui/card";

/** Groups whose selector matches this cluster's labels; each links to the group's clusters. */
export function ClusterGroupsCard({ groups }: { groups: ClusterDetail["groups"] }) {
  return (
    <Card title="Groups">
      {groups.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No group&apos;s selector matches this cluster&apos;s labels.</p>
      ) : (
        <ul className="flex flex-wrap gap-2">
          {groups.map((g) => (
            <li key={g.id}>
              <Link
                prefetch={false}
                href={`/clusters?group=${encodeURIComponent(g.id)}`}
                title={`Clusters in ${g.name}`}
                className="inline-flex rounded-md bg-sky-50 px-2 py-1 text-sm font-medium text-sky-800 ring-1 ring-sky-200 ring-inset hover:bg-sky-100 dark:bg-sky-950 dark:text-sky-300 dark:ring-sky-900 dark:hover:bg-sky-900"
              >
                {g.name}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
