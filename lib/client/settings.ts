"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CaStatus } from "@/lib/domain/certificates";
import type { Role } from "@/lib/domain/roles";
import type { SettingsPatch } from "@/lib/domain/settings";
import { settingsRoutes } from "@/lib/contracts/settings";
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

// During a rollover the progress moves as agents rotate (each at its next heartbeat): poll it
// while one runs; otherwise the CA changes only through these buttons.
const CA_ROLLOVER_POLL_MS = 5_000;

export function useFleetCa() {
  return useQuery({
    queryKey: queryKeys.fleetCa,
    queryFn: () => fetchJson<CaStatus>("/api/v1/ca"),
    refetchInterval: (q) => (q.state.data?.rollover ? CA_ROLLOVER_POLL_MS : false),
  });
}

function useCaAction(path: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => fetchJson<CaStatus>(path, { method: "POST", body: {} }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.fleetCa, data);
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export const useStartCaRollover = () => useCaAction("/api/v1/ca/rollover");
export const useRetireOldCa = () => useCaAction("/api/v1/ca/retire");

// ---------------------------------------------------------------------------------------------
// API keys and users (admin)

/** creator_disabled: its creator is disabled or gone, so the key no longer works. */
export type ApiKeyStatus = "active" | "expired" | "revoked" | "creator_disabled";
export type ApiKey = {
  id: string;
  name: string;
  role: Role;
  /** The lower of its role and its creator's current role; null when the creator is disabled or gone. */
  effectiveRole: Role | null;
  status: ApiKeyStatus;
  createdBy: { id: string; email: string; disabled: boolean } | null;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
};
/** POST's answer: the only place the key itself ever appears (never put in the query cache). */
export type CreatedApiKey = ApiKey & { key: string };
export type ApiKeyInput = { name: string; role: Role; expiresInDays?: number };

export function useApiKeys() {
  return useQuery({
    queryKey: queryKeys.apiKeys,
    queryFn: ({ signal }) => fetchJson<{ items: ApiKey[] }>("/api/v1/api-keys", { signal }),
    select: (d) => d.items,
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiKeyInput) => fetchJson<CreatedApiKey>("/api/v1/api-keys", { method: "POST", body: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.apiKeys }),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<ApiKey>(`/api/v1/api-keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.apiKeys }),
  });
}

export type User = {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  disabled: boolean;
  lastLoginAt: string | null;
  createdAt: string;
};
export type UserInput = { email: string; name?: string; password: string; role: Role };
export type UserPatch = { role?: Role; disabled?: boolean };

export function useUsers() {
  return useQuery({
    queryKey: queryKeys.users,
    queryFn: ({ signal }) => fetchJson<{ items: User[] }>("/api/v1/users", { signal }),
    select: (d) => d.items,
  });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: UserInput) => fetchJson<User>("/api/v1/users", { method: "POST", body: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.users }),
  });
}

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UserPatch }) =>
      fetchJson<User>(`/api/v1/users/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    // A user's role and state decide what their API keys can do: refresh both lists.
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.users });
      void client.invalidateQueries({ queryKey: queryKeys.apiKeys });
    },
  });
}
