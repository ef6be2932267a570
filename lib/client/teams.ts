"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { routeUrl } from "@/lib/contracts/route";
import { teamRoutes } from "@/lib/contracts/teams";
import type { Role } from "@/lib/domain/roles";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Teams page (lib/contracts/teams.ts).

export type { ScopePreview, Team, TeamMember } from "@/lib/contracts/teams";

export function useTeams() {
  return useQuery({
    queryKey: queryKeys.teams.list,
    queryFn: ({ signal }) => fetchJson(teamRoutes.list.path, { signal, schema: teamRoutes.list.response }),
    select: (d) => d.items,
  });
}

/** What a scope would match, and against `team`'s current scope who enters and leaves (while typing: the last answer stays). */
export function useScopePreview(selector: string, team: string | null) {
  return useQuery({
    queryKey: queryKeys.teams.preview(selector, team),
    queryFn: ({ signal }) =>
      fetchJson(teamRoutes.preview.path, {
        method: "POST",
        signal,
        body: { selector, ...(team ? { team } : {}) },
        schema: teamRoutes.preview.response,
      }),
    enabled: selector.trim() !== "",
    placeholderData: keepPreviousData,
  });
}

function useTeamMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.teams.all });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export type TeamInput = { name: string; description?: string | null; selector: string };

export const useCreateTeam = () =>
  useTeamMutation((input: TeamInput) =>
    fetchJson(teamRoutes.create.path, {
      method: "POST",
      body: { ...input, description: input.description || undefined },
      schema: teamRoutes.create.response,
    }),
  );

export const useUpdateTeam = () =>
  useTeamMutation(({ id, patch }: { id: string; patch: Partial<TeamInput> }) =>
    fetchJson(routeUrl(teamRoutes.update, { id }), { method: "PATCH", body: patch, schema: teamRoutes.update.response }),
  );

export const useDeleteTeam = () =>
  useTeamMutation(({ id, confirm }: { id: string; confirm?: string }) =>
    fetchJson(routeUrl(teamRoutes.delete, { id }, { confirm }), { method: "DELETE" }),
  );

export type MemberInput = { kind: "user" | "apiKey" | "ssoGroup"; value: string; role: Role };

export const useAddTeamMember = () =>
  useTeamMutation(({ teamId, member }: { teamId: string; member: MemberInput }) =>
    fetchJson(routeUrl(teamRoutes.addMember, { id: teamId }), {
      method: "POST",
      body: { [member.kind]: member.value, role: member.role },
      schema: teamRoutes.addMember.response,
    }),
  );

export const useUpdateTeamMember = () =>
  useTeamMutation(({ teamId, memberId, role }: { teamId: string; memberId: string; role: Role }) =>
    fetchJson(routeUrl(teamRoutes.updateMember, { id: teamId, memberId }), {
      method: "PATCH",
      body: { role },
      schema: teamRoutes.updateMember.response,
    }),
  );

export const useRemoveTeamMember = () =>
  useTeamMutation(({ teamId, memberId }: { teamId: string; memberId: string }) =>
    fetchJson(routeUrl(teamRoutes.removeMember, { id: teamId, memberId }), {
      method: "DELETE",
      schema: teamRoutes.removeMember.response,
    }),
  );
