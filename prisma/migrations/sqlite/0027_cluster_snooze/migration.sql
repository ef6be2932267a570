-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "snoozeOwner" TEXT;
ALTER TABLE "Cluster" ADD COLUMN "snoozeReason" TEXT;
ALTER TABLE "Cluster" ADD COLUMN "snoozedAt" DATETIME;
ALTER TABLE "Cluster" ADD COLUMN "snoozedBy" TEXT;
ALTER TABLE "Cluster" ADD COLUMN "snoozedUntil" DATETIME;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ClusterGroup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "selector" TEXT NOT NULL,
    "upgradeWindows" TEXT,
    "upgradeTimeZone" TEXT,
    "maxUnavailable" INTEGER,
    "gateTolerateSnoozed" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_ClusterGroup" ("createdAt", "description", "id", "maxUnavailable", "name", "selector", "updatedAt", "upgradeTimeZone", "upgradeWindows") SELECT "createdAt", "description", "id", "maxUnavailable", "name", "selector", "updatedAt", "upgradeTimeZone", "upgradeWindows" FROM "ClusterGroup";
DROP TABLE "ClusterGroup";
ALTER TABLE "new_ClusterGroup" RENAME TO "ClusterGroup";
CREATE UNIQUE INDEX "ClusterGroup_name_key" ON "ClusterGroup"("name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

