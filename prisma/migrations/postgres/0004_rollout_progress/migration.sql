-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "clusterTimeoutSeconds" INTEGER NOT NULL DEFAULT 600,
ADD COLUMN     "failureBaseline" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "stageCompletedAt" TIMESTAMP(3);

