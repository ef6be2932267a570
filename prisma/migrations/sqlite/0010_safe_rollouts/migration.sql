-- AlterTable
ALTER TABLE "ClusterGroup" ADD COLUMN "upgradeTimeZone" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Rollout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "targetVersion" TEXT NOT NULL,
    "groupId" TEXT,
    "selector" TEXT,
    "stages" TEXT NOT NULL,
    "maxUnavailable" INTEGER NOT NULL DEFAULT 1,
    "waitSeconds" INTEGER NOT NULL DEFAULT 60,
    "failureThreshold" INTEGER NOT NULL DEFAULT 1,
    "failureBaseline" INTEGER NOT NULL DEFAULT 0,
    "clusterTimeoutSeconds" INTEGER NOT NULL DEFAULT 600,
    "stageCompletedAt" DATETIME,
    "state" TEXT NOT NULL DEFAULT 'Pending',
    "currentStage" INTEGER NOT NULL DEFAULT 0,
    "pausedReason" TEXT,
    "requireApproval" BOOLEAN NOT NULL DEFAULT false,
    "includeUnready" BOOLEAN NOT NULL DEFAULT false,
    "waitingReason" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME
);
INSERT INTO "new_Rollout" ("clusterTimeoutSeconds", "createdAt", "createdById", "currentStage", "failureBaseline", "failureThreshold", "finishedAt", "groupId", "id", "maxUnavailable", "name", "pausedReason", "selector", "stageCompletedAt", "stages", "state", "targetVersion", "updatedAt", "waitSeconds") SELECT "clusterTimeoutSeconds", "createdAt", "createdById", "currentStage", "failureBaseline", "failureThreshold", "finishedAt", "groupId", "id", "maxUnavailable", "name", "pausedReason", "selector", "stageCompletedAt", "stages", "state", "targetVersion", "updatedAt", "waitSeconds" FROM "Rollout";
DROP TABLE "Rollout";
ALTER TABLE "new_Rollout" RENAME TO "Rollout";
CREATE INDEX "Rollout_state_idx" ON "Rollout"("state");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

