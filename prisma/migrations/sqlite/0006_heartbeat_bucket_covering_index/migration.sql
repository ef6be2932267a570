-- DropIndex
DROP INDEX "HeartbeatBucket_bucketStart_idx";

-- CreateIndex
CREATE INDEX "HeartbeatBucket_bucketStart_count_idx" ON "HeartbeatBucket"("bucketStart", "count");

