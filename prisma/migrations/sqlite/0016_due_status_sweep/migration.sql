-- DropIndex
DROP INDEX "Cluster_status_idx";

-- CreateIndex
CREATE INDEX "Cluster_status_lastHeartbeatAt_idx" ON "Cluster"("status", "lastHeartbeatAt");

-- CreateIndex
CREATE INDEX "Cluster_status_apiServerHealth_idx" ON "Cluster"("status", "apiServerHealth");

