-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "oidcSubject" TEXT,
    "disabledAt" TIMESTAMP(3),
    "lastLoginAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdById" TEXT,
    "lastUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RegistrationToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "secretHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "maxClusters" INTEGER NOT NULL,
    "usedClusters" INTEGER NOT NULL DEFAULT 0,
    "allowedLabels" TEXT,
    "fixedLabels" TEXT NOT NULL DEFAULT '{}',
    "revokedAt" TIMESTAMP(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RegistrationToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Cluster" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "caFingerprint" TEXT,
    "apiServerUrl" TEXT,
    "registeredAt" TIMESTAMP(3),
    "registrationTokenId" TEXT,
    "description" TEXT,
    "phase" TEXT NOT NULL DEFAULT 'Registration',
    "phaseChangedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'Pending',
    "statusChangedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastHeartbeatAt" TIMESTAMP(3),
    "agentVersion" TEXT,
    "kubernetesVersion" TEXT,
    "apiServerHealth" TEXT,
    "logsReporting" BOOLEAN,
    "metricsReporting" BOOLEAN,
    "podCount" INTEGER,
    "namespaceCount" INTEGER,
    "appliedPolicyRevision" TEXT,
    "enrolledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Cluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClusterLabel" (
    "clusterId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "ClusterLabel_pkey" PRIMARY KEY ("clusterId","key")
);

-- CreateTable
CREATE TABLE "NodePool" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "nodeCount" INTEGER NOT NULL,
    "readyNodes" INTEGER NOT NULL,
    "kubeletVersion" TEXT,
    "instanceType" TEXT,
    "cpuCores" DOUBLE PRECISION,
    "memoryGiB" DOUBLE PRECISION,
    "state" TEXT NOT NULL DEFAULT 'Active',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NodePool_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Certificate" (
    "serial" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "pem" TEXT NOT NULL,
    "notBefore" TIMESTAMP(3) NOT NULL,
    "notAfter" TIMESTAMP(3) NOT NULL,
    "firstUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "revokeReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Certificate_pkey" PRIMARY KEY ("serial")
);

-- CreateTable
CREATE TABLE "RevokedCertificate" (
    "serial" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "revokedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RevokedCertificate_pkey" PRIMARY KEY ("serial")
);

-- CreateTable
CREATE TABLE "HeartbeatBucket" (
    "clusterId" TEXT NOT NULL,
    "bucketStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "HeartbeatBucket_pkey" PRIMARY KEY ("clusterId","bucketStart")
);

-- CreateTable
CREATE TABLE "ClusterEvent" (
    "id" SERIAL NOT NULL,
    "clusterId" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "fromValue" TEXT,
    "toValue" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClusterEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RegistrationAttempt" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "result" TEXT NOT NULL,
    "sourceAddress" TEXT,
    "tokenId" TEXT,
    "clusterName" TEXT,
    "clusterId" TEXT,
    "message" TEXT,

    CONSTRAINT "RegistrationAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClusterGroup" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "selector" TEXT NOT NULL,
    "upgradeWindows" TEXT,
    "maxUnavailable" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Policy" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Policy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PolicyRevision" (
    "id" TEXT NOT NULL,
    "policyId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PolicyTarget" (
    "policyId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,

    CONSTRAINT "PolicyTarget_pkey" PRIMARY KEY ("policyId","groupId")
);

-- CreateTable
CREATE TABLE "Directive" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),
    "ackedAt" TIMESTAMP(3),

    CONSTRAINT "Directive_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Deregistration" (
    "clusterId" TEXT NOT NULL,
    "clusterName" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedBy" TEXT NOT NULL,
    "stepStartedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "workloadsAtStart" INTEGER,
    "directiveId" TEXT,
    "reason" TEXT,
    "forced" TEXT NOT NULL DEFAULT '[]',
    "verification" TEXT,
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Deregistration_pkey" PRIMARY KEY ("clusterId")
);

-- CreateTable
CREATE TABLE "ClusterTombstone" (
    "clusterId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "caFingerprint" TEXT,
    "deregisteredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deregisteredBy" TEXT NOT NULL,
    "reason" TEXT,

    CONSTRAINT "ClusterTombstone_pkey" PRIMARY KEY ("clusterId")
);

-- CreateTable
CREATE TABLE "Rollout" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RolloutCluster" (
    "rolloutId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "stage" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'Pending',
    "fromVersion" TEXT,
    "directiveId" TEXT,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "error" TEXT,

    CONSTRAINT "RolloutCluster_pkey" PRIMARY KEY ("rolloutId","clusterId")
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" TEXT NOT NULL DEFAULT '{}',

    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Secret" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Secret_pkey" PRIMARY KEY ("name")
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

-- AddForeignKey
ALTER TABLE "Cluster" ADD CONSTRAINT "Cluster_registrationTokenId_fkey" FOREIGN KEY ("registrationTokenId") REFERENCES "RegistrationToken"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterLabel" ADD CONSTRAINT "ClusterLabel_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NodePool" ADD CONSTRAINT "NodePool_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Certificate" ADD CONSTRAINT "Certificate_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HeartbeatBucket" ADD CONSTRAINT "HeartbeatBucket_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PolicyRevision" ADD CONSTRAINT "PolicyRevision_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PolicyTarget" ADD CONSTRAINT "PolicyTarget_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PolicyTarget" ADD CONSTRAINT "PolicyTarget_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "ClusterGroup"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Directive" ADD CONSTRAINT "Directive_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutCluster" ADD CONSTRAINT "RolloutCluster_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

