-- CreateIndex
CREATE INDEX "Cluster_snoozedUntil_idx" ON "Cluster"("snoozedUntil");
