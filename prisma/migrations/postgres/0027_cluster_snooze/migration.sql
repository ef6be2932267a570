-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "snoozeOwner" TEXT,
ADD COLUMN     "snoozeReason" TEXT,
ADD COLUMN     "snoozedAt" TIMESTAMP(3),
ADD COLUMN     "snoozedBy" TEXT,
ADD COLUMN     "snoozedUntil" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "ClusterGroup" ADD COLUMN     "gateTolerateSnoozed" BOOLEAN NOT NULL DEFAULT false;

