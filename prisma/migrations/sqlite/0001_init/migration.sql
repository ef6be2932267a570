-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "oidcSubject" TEXT,
    "disabledAt" DATETIME,
    "lastLoginAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdById" TEXT,
    "lastUsedAt" DATETIME,
    "expiresAt" DATETIME,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "RegistrationToken" (
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
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Cluster" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "caFingerprint" TEXT,
    "apiServerUrl" TEXT,
    "registeredAt" DATETIME,
    "registrationTokenId" TEXT,
    "description" TEXT,
    "phase" TEXT NOT NULL DEFAULT 'Registration',
    "phaseChangedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'Pending',
    "statusChangedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastHeartbeatAt" DATETIME,
    "agentVersion" TEXT,
    "kubernetesVersion" TEXT,
    "apiServerHealth" TEXT,
    "logsReporting" BOOLEAN,
    "metricsReporting" BOOLEAN,
    "podCount" INTEGER,
    "namespaceCount" INTEGER,
    "appliedPolicyRevision" TEXT,
    "enrolledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Cluster_registrationTokenId_fkey" FOREIGN KEY ("registrationTokenId") REFERENCES "RegistrationToken" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ClusterLabel" (
    "clusterId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    PRIMARY KEY ("clusterId", "key"),
    CONSTRAINT "ClusterLabel_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "NodePool" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clusterId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "nodeCount" INTEGER NOT NULL,
    "readyNodes" INTEGER NOT NULL,
    "kubeletVersion" TEXT,
    "instanceType" TEXT,
    "cpuCores" REAL,
    "memoryGiB" REAL,
    "state" TEXT NOT NULL DEFAULT 'Active',
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "NodePool_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Certificate" (
    "serial" TEXT NOT NULL PRIMARY KEY,
    "clusterId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "pem" TEXT NOT NULL,
    "notBefore" DATETIME NOT NULL,
    "notAfter" DATETIME NOT NULL,
    "firstUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "revokeReason" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Certificate_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RevokedCertificate" (
    "serial" TEXT NOT NULL PRIMARY KEY,
    "clusterId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "revokedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "HeartbeatBucket" (
    "clusterId" TEXT NOT NULL,
    "bucketStart" DATETIME NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("clusterId", "bucketStart"),
    CONSTRAINT "HeartbeatBucket_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ClusterEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "clusterId" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "fromValue" TEXT,
    "toValue" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "RegistrationAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "result" TEXT NOT NULL,
    "sourceAddress" TEXT,
    "tokenId" TEXT,
    "clusterName" TEXT,
    "clusterId" TEXT,
    "message" TEXT
);

-- CreateTable
CREATE TABLE "ClusterGroup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "selector" TEXT NOT NULL,
    "upgradeWindows" TEXT,
    "maxUnavailable" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Policy" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PolicyRevision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "policyId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PolicyRevision_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PolicyTarget" (
    "policyId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,

    PRIMARY KEY ("policyId", "groupId"),
    CONSTRAINT "PolicyTarget_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "PolicyTarget_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "ClusterGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Directive" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clusterId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" DATETIME,
    "ackedAt" DATETIME,
    CONSTRAINT "Directive_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Deregistration" (
    "clusterId" TEXT NOT NULL PRIMARY KEY,
    "clusterName" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedBy" TEXT NOT NULL,
    "stepStartedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "workloadsAtStart" INTEGER,
    "directiveId" TEXT,
    "reason" TEXT,
    "forced" TEXT NOT NULL DEFAULT '[]',
    "verification" TEXT,
    "finishedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ClusterTombstone" (
    "clusterId" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "caFingerprint" TEXT,
    "deregisteredAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deregisteredBy" TEXT NOT NULL,
    "reason" TEXT
);

-- CreateTable
CREATE TABLE "Rollout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "targetVersion" TEXT NOT NULL,
    "groupId" TEXT,
    "selector" TEXT,
    "stages" TEXT NOT NULL,
    "maxUnavailable" INTEGER NOT NULL DEFAULT 1,
    "waitSeconds" INTEGER NOT NULL DEFAULT 60,
    "failureThreshold" INTEGER NOT NULL DEFAULT 1,
    "state" TEXT NOT NULL DEFAULT 'Pending',
    "currentStage" INTEGER NOT NULL DEFAULT 0,
    "pausedReason" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME
);

-- CreateTable
CREATE TABLE "RolloutCluster" (
    "rolloutId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "stage" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'Pending',
    "fromVersion" TEXT,
    "directiveId" TEXT,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "error" TEXT,

    PRIMARY KEY ("rolloutId", "clusterId"),
    CONSTRAINT "RolloutCluster_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" TEXT NOT NULL DEFAULT '{}'
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Secret" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");

-- CreateIndex
CREATE INDEX "ApiKey_createdAt_idx" ON "ApiKey"("createdAt");

-- CreateIndex
CREATE INDEX "RegistrationToken_createdAt_idx" ON "RegistrationToken"("createdAt");

-- CreateIndex
CREATE INDEX "RegistrationToken_expiresAt_idx" ON "RegistrationToken"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Cluster_name_key" ON "Cluster"("name");

-- CreateIndex
CREATE INDEX "Cluster_status_idx" ON "Cluster"("status");

-- CreateIndex
CREATE INDEX "Cluster_phase_idx" ON "Cluster"("phase");

-- CreateIndex
CREATE INDEX "Cluster_lastHeartbeatAt_idx" ON "Cluster"("lastHeartbeatAt");

-- CreateIndex
CREATE INDEX "Cluster_registeredAt_idx" ON "Cluster"("registeredAt");

-- CreateIndex
CREATE INDEX "Cluster_agentVersion_idx" ON "Cluster"("agentVersion");

-- CreateIndex
CREATE INDEX "ClusterLabel_key_value_idx" ON "ClusterLabel"("key", "value");

-- CreateIndex
CREATE UNIQUE INDEX "NodePool_clusterId_name_key" ON "NodePool"("clusterId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Certificate_fingerprint_key" ON "Certificate"("fingerprint");

-- CreateIndex
CREATE INDEX "Certificate_clusterId_createdAt_idx" ON "Certificate"("clusterId", "createdAt");

-- CreateIndex
CREATE INDEX "Certificate_notAfter_idx" ON "Certificate"("notAfter");

-- CreateIndex
CREATE INDEX "RevokedCertificate_clusterId_idx" ON "RevokedCertificate"("clusterId");

-- CreateIndex
CREATE INDEX "HeartbeatBucket_bucketStart_idx" ON "HeartbeatBucket"("bucketStart");

-- CreateIndex
CREATE INDEX "ClusterEvent_clusterId_at_idx" ON "ClusterEvent"("clusterId", "at");

-- CreateIndex
CREATE INDEX "ClusterEvent_at_idx" ON "ClusterEvent"("at");

-- CreateIndex
CREATE INDEX "RegistrationAttempt_at_idx" ON "RegistrationAttempt"("at");

-- CreateIndex
CREATE INDEX "RegistrationAttempt_result_at_idx" ON "RegistrationAttempt"("result", "at");

-- CreateIndex
CREATE INDEX "RegistrationAttempt_tokenId_idx" ON "RegistrationAttempt"("tokenId");

-- CreateIndex
CREATE UNIQUE INDEX "ClusterGroup_name_key" ON "ClusterGroup"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Policy_name_key" ON "Policy"("name");

-- CreateIndex
CREATE UNIQUE INDEX "PolicyRevision_policyId_revision_key" ON "PolicyRevision"("policyId", "revision");

-- CreateIndex
CREATE INDEX "Directive_clusterId_ackedAt_idx" ON "Directive"("clusterId", "ackedAt");

-- CreateIndex
CREATE INDEX "ClusterTombstone_name_idx" ON "ClusterTombstone"("name");

-- CreateIndex
CREATE INDEX "Rollout_state_idx" ON "Rollout"("state");

-- CreateIndex
CREATE INDEX "RolloutCluster_clusterId_idx" ON "RolloutCluster"("clusterId");

-- CreateIndex
CREATE INDEX "AuditLog_at_idx" ON "AuditLog"("at");

-- CreateIndex
CREATE INDEX "AuditLog_actorLabel_at_idx" ON "AuditLog"("actorLabel", "at");

-- CreateIndex
CREATE INDEX "AuditLog_action_at_idx" ON "AuditLog"("action", "at");

-- CreateIndex
CREATE INDEX "AuditLog_targetId_at_idx" ON "AuditLog"("targetId", "at");

