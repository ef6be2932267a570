-- CreateTable
CREATE TABLE "QueuedDrain" (
    "clusterId" TEXT NOT NULL,
    "batchId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "queuedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notBefore" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "QueuedDrain_pkey" PRIMARY KEY ("clusterId")
);

-- CreateIndex
CREATE INDEX "QueuedDrain_notBefore_idx" ON "QueuedDrain"("notBefore");

-- CreateIndex
CREATE INDEX "QueuedDrain_batchId_idx" ON "QueuedDrain"("batchId");

-- AddForeignKey
ALTER TABLE "QueuedDrain" ADD CONSTRAINT "QueuedDrain_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

