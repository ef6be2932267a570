-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_RegistrationRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "pendingKey" TEXT,
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
INSERT INTO "new_RegistrationRequest" ("agentVersion", "apiServerUrl", "caFingerprint", "clusterId", "clusterUid", "csr", "decidedAt", "decidedBy", "expiresAt", "firstSeenAt", "id", "keyHash", "kubernetesVersion", "labels", "lastSeenAt", "name", "notifiedAt", "reason", "sourceAddress", "state", "tokenId", "tokenName", "pendingKey") SELECT "agentVersion", "apiServerUrl", "caFingerprint", "clusterId", "clusterUid", "csr", "decidedAt", "decidedBy", "expiresAt", "firstSeenAt", "id", "keyHash", "kubernetesVersion", "labels", "lastSeenAt", "name", "notifiedAt", "reason", "sourceAddress", "state", "tokenId", "tokenName",
    -- Requests waiting now keep waiting, each under its name and key.
    CASE WHEN "state" = 'pending' THEN "name" || ':' || "keyHash" END FROM "RegistrationRequest";
DROP TABLE "RegistrationRequest";
ALTER TABLE "new_RegistrationRequest" RENAME TO "RegistrationRequest";
CREATE UNIQUE INDEX "RegistrationRequest_pendingKey_key" ON "RegistrationRequest"("pendingKey");
CREATE INDEX "RegistrationRequest_state_firstSeenAt_idx" ON "RegistrationRequest"("state", "firstSeenAt");
CREATE INDEX "RegistrationRequest_name_state_idx" ON "RegistrationRequest"("name", "state");
CREATE INDEX "RegistrationRequest_keyHash_idx" ON "RegistrationRequest"("keyHash");
CREATE INDEX "RegistrationRequest_tokenId_idx" ON "RegistrationRequest"("tokenId");
CREATE INDEX "RegistrationRequest_expiresAt_idx" ON "RegistrationRequest"("expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

