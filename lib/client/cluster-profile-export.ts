"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { clusterProfileRoutes, type ExporterPatch } from "@/lib/contracts/cluster-profiles";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of Settings' ClusterProfile export section.

// The exporter runs every 5 s in the background: its last export time and error change without
// anyone touching the form, so the section polls while it is on.
const EXPORTER_POLL_MS = 10_000;

export function useClusterProfileExport() {
  const route = clusterProfileRoutes.exporter;
  return useQuery({
    queryKey: queryKeys.clusterProfileExport,
    queryFn: ({ signal }) => fetchJson(route.path, { signal, schema: route.response }),
    refetchInterval: (q) => (q.state.data?.enabled ? EXPORTER_POLL_MS : false),
  });
}

export function useUpdateClusterProfileExport() {
  const client = useQueryClient();
  const route = clusterProfileRoutes.updateExporter;
  return useMutation({
    mutationFn: (patch: ExporterPatch) => fetchJson(route.path, { method: "PATCH", body: patch, schema: route.response }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.clusterProfileExport, data);
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}
