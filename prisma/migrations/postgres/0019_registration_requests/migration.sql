-- AlterTable
ALTER TABLE "RegistrationToken" ADD COLUMN     "requireApproval" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "clusterUid" TEXT;

-- CreateTable
CREATE TABLE "RegistrationRequest" (
    "id" TEXT NOT NULL,
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
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "decidedAt" TIMESTAMP(3),
    "decidedBy" TEXT,
    "reason" TEXT,
    "clusterId" TEXT,
    "notifiedAt" TIMESTAMP(3),

    CONSTRAINT "RegistrationRequest_pkey" PRIMARY KEY ("id")
);

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

-- AddForeignKey
ALTER TABLE "RegistrationRequest" ADD CONSTRAINT "RegistrationRequest_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "RegistrationToken"("id") ON DELETE SET NULL ON UPDATE CASCADE;

