"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Settings, SettingsPatch } from "@/lib/domain/settings";
import { routeUrl } from "@/lib/contracts/route";
import { settingsRoutes } from "@/lib/contracts/settings";
import { apiKeyRoutes, userRoutes, type ApiKeyInput, type UserInput, type UserPatch } from "@/lib/contracts/users";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Settings page: fleet settings, the fleet CA, API keys and users.

export function useSettings() {
  return useQuery({
    queryKey: queryKeys.settings,
    queryFn: () => fetchJson(settingsRoutes.get.path, { schema: settingsRoutes.get.response }),
  });
}

export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: SettingsPatch) =>
      fetchJson(settingsRoutes.update.path, { method: "PATCH", body: patch, schema: settingsRoutes.update.response }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.settings, data);
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

/**
 * An on/off setting saved as soon as it is flipped. The box shows what was asked for from the click
 * on (a controlled checkbox would otherwise snap back until the mutation reports itself pending);
 * once the server answers it shows the saved value again, so a refusal puts it back.
 */
export function useSettingSwitch(read: (settings: Settings) => boolean, patchFor: (on: boolean) => SettingsPatch) {
  const settings = useSettings();
  const update = useUpdateSettings();
  const [asked, setAsked] = useState<boolean | null>(null);
  return {
    ready: settings.data !== undefined,
    checked: asked ?? (settings.data ? read(settings.data) : false),
    saving: update.isPending,
    error: update.error,
    set(on: boolean) {
      setAsked(on);
      update.mutate(patchFor(on), { onSettled: () => setAsked(null) });
    },
  };
}

// During a rollover the progress moves as agents rotate (each at its next heartbeat): poll it
// while one runs; otherwise the CA changes only through these buttons.
const CA_ROLLOVER_POLL_MS = 5_000;

export function useFleetCa() {
  return useQuery({
    queryKey: queryKeys.fleetCa,
    queryFn: () => fetchJson(settingsRoutes.ca.path, { schema: settingsRoutes.ca.response }),
    refetchInterval: (q) => (q.state.data?.rollover ? CA_ROLLOVER_POLL_MS : false),
  });
}

function useCaAction(route: typeof settingsRoutes.caRollover | typeof settingsRoutes.caRetire) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => fetchJson(route.path, { method: "POST", body: {}, schema: route.response }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.fleetCa, data);
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export const useStartCaRollover = () => useCaAction(settingsRoutes.caRollover);
export const useRetireOldCa = () => useCaAction(settingsRoutes.caRetire);

// ---------------------------------------------------------------------------------------------
// API keys and users (admin)

export type { ApiKey, ApiKeyInput, ApiKeyStatus, CreatedApiKey, User, UserInput, UserPatch } from "@/lib/contracts/users";

export function useApiKeys() {
  return useQuery({
    queryKey: queryKeys.apiKeys,
    queryFn: ({ signal }) => fetchJson(apiKeyRoutes.list.path, { signal, schema: apiKeyRoutes.list.response }),
    select: (d) => d.items,
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiKeyInput) =>
      fetchJson(apiKeyRoutes.create.path, { method: "POST", body: input, schema: apiKeyRoutes.create.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.apiKeys }),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson(routeUrl(apiKeyRoutes.revoke, { id }), { method: "DELETE", schema: apiKeyRoutes.revoke.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.apiKeys }),
  });
}

export function useUsers() {
  return useQuery({
    queryKey: queryKeys.users,
    queryFn: ({ signal }) => fetchJson(userRoutes.list.path, { signal, schema: userRoutes.list.response }),
    select: (d) => d.items,
  });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: UserInput) =>
      fetchJson(userRoutes.create.path, { method: "POST", body: input, schema: userRoutes.create.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.users }),
  });
}

/** A new set-password link for a user: the answer is shown once and never cached. */
export function useCreatePasswordLink() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson(routeUrl(userRoutes.passwordLink, { id }), { method: "POST", schema: userRoutes.passwordLink.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.users }),
  });
}

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UserPatch }) =>
      fetchJson(routeUrl(userRoutes.update, { id }), { method: "PATCH", body: patch, schema: userRoutes.update.response }),
    // A user's role and state decide what their API keys can do: refresh both lists.
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.users });
      void client.invalidateQueries({ queryKey: queryKeys.apiKeys });
    },
  });
}

export function useClearSignInLocks() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson(routeUrl(userRoutes.clearSignInLocks, { id }), {
        method: "DELETE",
        schema: userRoutes.clearSignInLocks.response,
      }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.users }),
  });
}
