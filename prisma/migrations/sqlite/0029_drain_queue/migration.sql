-- CreateTable
CREATE TABLE "QueuedDrain" (
    "clusterId" TEXT NOT NULL PRIMARY KEY,
    "batchId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "queuedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notBefore" DATETIME NOT NULL,
    CONSTRAINT "QueuedDrain_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "QueuedDrain_notBefore_idx" ON "QueuedDrain"("notBefore");

-- CreateIndex
CREATE INDEX "QueuedDrain_batchId_idx" ON "QueuedDrain"("batchId");

