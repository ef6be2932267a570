-- AlterTable
ALTER TABLE "ClusterGroup" ADD COLUMN     "upgradeTimeZone" TEXT;

-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "includeUnready" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "requireApproval" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "waitingReason" TEXT;

