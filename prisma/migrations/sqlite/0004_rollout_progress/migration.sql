-- Written by hand: Prisma's diff redefines the table (copy, drop, rename), and inside the
-- migration's transaction PRAGMA foreign_keys cannot be switched off, so dropping "Rollout"
-- would cascade into "RolloutCluster". Adding the columns in place keeps every row.
ALTER TABLE "Rollout" ADD COLUMN "failureBaseline" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Rollout" ADD COLUMN "clusterTimeoutSeconds" INTEGER NOT NULL DEFAULT 600;
ALTER TABLE "Rollout" ADD COLUMN "stageCompletedAt" DATETIME;
