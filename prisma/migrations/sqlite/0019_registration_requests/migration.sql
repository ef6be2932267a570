-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "clusterUid" TEXT;

-- CreateTable
CREATE TABLE "RegistrationRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "pendingName" TEXT,
    "tokenId" TEXT,
    "tokenName" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "csr" TEXT NOT NULL,
    "labels" TEXT NOT NULL DEFAULT '{}',
    "sourceAddress" TEXT,
    "caFingerprint" TEXT NOT NULL,
    "apiServerUrl" TEXT NOT NULL,
    "agentVersion" TEXT NOT NULL,
    "kubernetesVersion" TEXT,
    "clusterUid" TEXT,
    "firstSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "decidedAt" DATETIME,
    "decidedBy" TEXT,
    "reason" TEXT,
    "clusterId" TEXT,
    "notifiedAt" DATETIME,
    CONSTRAINT "RegistrationRequest_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "RegistrationToken" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_RegistrationToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "secretHash" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "maxClusters" INTEGER NOT NULL,
    "usedClusters" INTEGER NOT NULL DEFAULT 0,
    "allowedLabels" TEXT,
    "fixedLabels" TEXT NOT NULL DEFAULT '{}',
    "revokedAt" DATETIME,
    "clusterId" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requireApproval" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_RegistrationToken" ("allowedLabels", "clusterId", "createdAt", "createdById", "description", "expiresAt", "fixedLabels", "id", "maxClusters", "name", "revokedAt", "secretHash", "usedClusters") SELECT "allowedLabels", "clusterId", "createdAt", "createdById", "description", "expiresAt", "fixedLabels", "id", "maxClusters", "name", "revokedAt", "secretHash", "usedClusters" FROM "RegistrationToken";
DROP TABLE "RegistrationToken";
ALTER TABLE "new_RegistrationToken" RENAME TO "RegistrationToken";
CREATE INDEX "RegistrationToken_clusterId_idx" ON "RegistrationToken"("clusterId");
CREATE INDEX "RegistrationToken_createdAt_idx" ON "RegistrationToken"("createdAt");
CREATE INDEX "RegistrationToken_expiresAt_idx" ON "RegistrationToken"("expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "RegistrationRequest_pendingName_key" ON "RegistrationRequest"("pendingName");

-- CreateIndex
CREATE INDEX "RegistrationRequest_state_firstSeenAt_idx" ON "RegistrationRequest"("state", "firstSeenAt");

-- CreateIndex
CREATE INDEX "RegistrationRequest_name_state_idx" ON "RegistrationRequest"("name", "state");

-- CreateIndex
CREATE INDEX "RegistrationRequest_keyHash_idx" ON "RegistrationRequest"("keyHash");

-- CreateIndex
CREATE INDEX "RegistrationRequest_tokenId_idx" ON "RegistrationRequest"("tokenId");

-- CreateIndex
CREATE INDEX "RegistrationRequest_expiresAt_idx" ON "RegistrationRequest"("expiresAt");

-- CreateIndex
CREATE INDEX "Cluster_clusterUid_idx" ON "Cluster"("clusterUid");

