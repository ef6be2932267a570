import Link from "next/link";
import type { ClusterDetail } from "@/lib/client/clusters";
import { Card } from "@/components/ui/card";
import { RelativeTime } from "@/components/ui/relative-time";
import { CopyValue } from "./copy-value";
import { DefinitionList, Missing, Mono } from "./definition-list";
import { LocalTime } from "@/components/ui/local-time";

/** What the agent proved at registration. Read-only: the API refuses changes to identity. */
export function ClusterIdentityCard({ cluster }: { cluster: ClusterDetail }) {
  const same = cluster.reasons.find((r) => r.code === "sameCluster");
  return (
    <Card
      title="Identity"
      action={<span className="text-xs text-slate-500 dark:text-slate-400">Read-only · set at registration</span>}
    >
      <DefinitionList
        items={[
          ["Cluster ID", <CopyValue key="id" value={cluster.id} what="cluster ID" />],
          [
            "CA fingerprint",
            cluster.caFingerprint ? (
              <CopyValue key="ca" value={cluster.caFingerprint} what="CA fingerprint" />
            ) : (
              <Missing>not registered yet</Missing>
            ),
          ],
          [
            "Kubernetes cluster UID",
            cluster.clusterUid ? (
              <CopyValue key="uid" value={cluster.clusterUid} what="kube-system namespace UID" />
            ) : (
              <Missing>not reported (older agent, or it may not read the kube-system namespace)</Missing>
            ),
          ],
          [
            "API server",
            cluster.apiServerUrl ? <Mono key="url">{cluster.apiServerUrl}</Mono> : <Missing>not registered yet</Missing>,
          ],
          [
            "Registered",
            cluster.registeredAt ? (
              <span key="reg">
                <LocalTime iso={cluster.registeredAt} format="datetime" />{" "}
                <span className="text-slate-500 dark:text-slate-400">
                  (<RelativeTime iso={cluster.registeredAt} />)
                </span>
              </span>
            ) : (
              <Missing>not registered yet</Missing>
            ),
          ],
          [
            "Token used",
            cluster.registrationToken ? (
              <span key="tok">
                {cluster.registrationToken.name} <Mono>({cluster.registrationToken.id})</Mono>
              </span>
            ) : (
              <Missing>{cluster.registeredAt ? "token since deleted" : "none"}</Missing>
            ),
          ],
        ]}
      />
      {same && (
        <div
          role="alert"
          data-testid="same-cluster-warning"
          className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
        >
          <p className="font-medium">
            Same Kubernetes cluster as{" "}
            {same.clusters.map((other, i) => (
              <span key={other.id}>
                {i > 0 && ", "}
                <Link href={`/clusters/${other.id}`} className="underline">
                  {other.name}
                </Link>
              </span>
            ))}
          </p>
          <p className="mt-1">
            They report the same kube-system namespace UID: one cluster registered twice, or an agent&apos;s state copied to
            another cluster. Deregister the one that should not be in the fleet.
          </p>
        </div>
      )}
    </Card>
  );
}
