"use client";

import { useState, type FormEvent } from "react";
import { policyContentSchema } from "@/lib/domain/policies";
import { usePublishRevision, type Policy } from "@/lib/client/policies";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { InlineError } from "@/components/ui/inline-error";
import { JsonField } from "@/components/ui/json-field";
import { checkJson, prettyJson } from "@/components/ui/json-text";

/** Publishes the next revision of a policy, starting from the current content. */
export function PublishRevisionDialog({ policy, onClose }: { policy: Policy; onClose: () => void }) {
  const publish = usePublishRevision();
  const current = prettyJson(policy.content ?? {});
  const [content, setContent] = useState(current);
  const check = checkJson(content, policyContentSchema);
  // Compared as parsed JSON, so reformatting alone does not count as a change.
  const unchanged = check.ok && JSON.stringify(check.value) === JSON.stringify(policy.content ?? {});
  const next = (policy.revision ?? 0) + 1;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!check.ok || unchanged) return;
    publish.mutate({ id: policy.id, content: check.value }, { onSuccess: onClose });
  }

  return (
    <Dialog
      title={`Publish revision ${next} of ${policy.name}`}
      description={
        <>
          Clusters in {policy.groups.length ? policy.groups.map((g) => g.name).join(", ") : "no group yet"} move from revision{" "}
          {policy.revision ?? "—"} to {next} with their next heartbeat; until they report it applied, they are not enrolled.
        </>
      }
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <JsonField
          label={`Content of revision ${next} (JSON)`}
          value={content}
          onChange={setContent}
          problems={check.ok ? [] : check.problems}
          hint={
            unchanged ? `Same as revision ${policy.revision}: change something to publish.` : "A JSON object; at most 32 KiB."
          }
          rows={14}
        />
        {publish.error && <InlineError error={publish.error} />}
        <div className="flex items-center justify-between gap-2">
          <Button type="button" variant="ghost" disabled={content === current} onClick={() => setContent(current)}>
            Reset to revision {policy.revision}
          </Button>
          <div className="flex gap-2">
            <Button type="button" variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={publish.isPending || !check.ok || unchanged}>
              {publish.isPending ? "Publishing…" : `Publish revision ${next}`}
            </Button>
          </div>
        </div>
      </form>
    </Dialog>
  );
}
