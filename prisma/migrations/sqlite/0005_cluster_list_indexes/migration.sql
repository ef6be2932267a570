-- DropIndex
DROP INDEX "Cluster_phase_idx";

-- DropIndex
DROP INDEX "ClusterLabel_key_value_idx";

-- CreateIndex
CREATE INDEX "Cluster_name_id_idx" ON "Cluster"("name", "id");

-- CreateIndex
CREATE INDEX "Cluster_phase_lastHeartbeatAt_apiServerHealth_id_idx" ON "Cluster"("phase", "lastHeartbeatAt", "apiServerHealth", "id");

-- CreateIndex
CREATE INDEX "ClusterLabel_key_value_clusterId_idx" ON "ClusterLabel"("key", "value", "clusterId");

