-- CreateTable
CREATE TABLE "CapiSource" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sealedKubeconfig" TEXT NOT NULL,
    "server" TEXT NOT NULL,
    "namespaces" TEXT NOT NULL DEFAULT '[]',
    "optInLabel" TEXT NOT NULL,
    "labelMappings" TEXT NOT NULL DEFAULT '[]',
    "fixedLabels" TEXT NOT NULL DEFAULT '{}',
    "requireApproval" BOOLEAN NOT NULL DEFAULT false,
    "agentOptions" TEXT NOT NULL DEFAULT '{}',
    "allowPrivateTargets" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "servedVersion" TEXT,
    "resourceVersion" TEXT,
    "watcherId" TEXT,
    "watchLeaseUntil" TIMESTAMP(3),
    "lastSyncAt" TIMESTAMP(3),
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CapiSource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CapiCluster" (
    "id" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "fleetName" TEXT NOT NULL,
    "clusterId" TEXT,
    "optedIn" BOOLEAN NOT NULL DEFAULT false,
    "capiPhase" TEXT,
    "conditions" TEXT NOT NULL DEFAULT '[]',
    "labels" TEXT NOT NULL DEFAULT '{}',
    "infrastructureProvider" TEXT,
    "kubernetesVersion" TEXT,
    "topologyClass" TEXT,
    "controlPlaneInitialized" BOOLEAN NOT NULL DEFAULT false,
    "capiCreatedAt" TIMESTAMP(3),
    "deletingSince" TIMESTAMP(3),
    "goneAt" TIMESTAMP(3),
    "step" TEXT NOT NULL,
    "stepError" TEXT,
    "stepErrorAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "tokenId" TEXT,
    "sealedToken" TEXT,
    "expectedClusterUid" TEXT,
    "appliedAt" TIMESTAMP(3),
    "excludedAt" TIMESTAMP(3),
    "excludedBy" TEXT,
    "markSynced" BOOLEAN NOT NULL DEFAULT true,
    "annotatedExcluded" BOOLEAN NOT NULL DEFAULT false,
    "seenAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CapiCluster_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CapiSource_name_key" ON "CapiSource"("name");

-- CreateIndex
CREATE INDEX "CapiCluster_clusterId_idx" ON "CapiCluster"("clusterId");

-- CreateIndex
CREATE INDEX "CapiCluster_nextAttemptAt_idx" ON "CapiCluster"("nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "CapiCluster_sourceId_namespace_name_key" ON "CapiCluster"("sourceId", "namespace", "name");

-- AddForeignKey
ALTER TABLE "CapiCluster" ADD CONSTRAINT "CapiCluster_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "CapiSource"("id") ON DELETE CASCADE ON UPDATE CASCADE;

