import { EmptyState } from "@/components/ui/states";

/** Signed in, with no fleet role and in no team: nothing to see yet, and who can change that. */
export function NoAccess({ email }: { email: string }) {
  return (
    <div data-testid="no-access">
      <EmptyState title="You have no role yet">
        You are signed in as <span className="font-medium">{email}</span>, but you have no fleet role and are in no team, so there
        is no cluster or page for you to see. A fleet admin can give you a fleet role (Settings → Users) or add you, or an SSO
        group you are in, to a team.
      </EmptyState>
    </div>
  );
}
