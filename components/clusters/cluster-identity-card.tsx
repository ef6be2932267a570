import type { ClusterDetail } from "@/lib/client/clusters";
import { Card } from "@/components/ui/card";
import { RelativeTime } from "@/components/ui/relative-time";
import { CopyValue } from "./copy-value";
import { DefinitionList, Missing, Mono } from "./definition-list";
import { LocalTime } from "@/components/ui/local-time";

/** What the agent proved at registration. Read-only: the API refuses changes to identity. */
export function ClusterIdentityCard({ cluster }: { cluster: ClusterDetail }) {
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
    </Card>
  );
}
