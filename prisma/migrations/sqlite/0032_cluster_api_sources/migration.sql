-- CreateTable
CREATE TABLE "CapiSource" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "watchLeaseUntil" DATETIME,
    "lastSyncAt" DATETIME,
    "lastError" TEXT,
    "lastErrorAt" DATETIME,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CapiCluster" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "capiCreatedAt" DATETIME,
    "deletingSince" DATETIME,
    "goneAt" DATETIME,
    "step" TEXT NOT NULL,
    "stepError" TEXT,
    "stepErrorAt" DATETIME,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "tokenId" TEXT,
    "sealedToken" TEXT,
    "expectedClusterUid" TEXT,
    "appliedAt" DATETIME,
    "excludedAt" DATETIME,
    "excludedBy" TEXT,
    "markSynced" BOOLEAN NOT NULL DEFAULT true,
    "annotatedExcluded" BOOLEAN NOT NULL DEFAULT false,
    "seenAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "CapiCluster_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "CapiSource" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "CapiSource_name_key" ON "CapiSource"("name");

-- CreateIndex
CREATE INDEX "CapiCluster_clusterId_idx" ON "CapiCluster"("clusterId");

-- CreateIndex
CREATE INDEX "CapiCluster_nextAttemptAt_idx" ON "CapiCluster"("nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "CapiCluster_sourceId_namespace_name_key" ON "CapiCluster"("sourceId", "namespace", "name");

