-- AlterTable
ALTER TABLE "RegistrationToken" ADD COLUMN "teamId" TEXT;

-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN "teamId" TEXT;

-- AlterTable
ALTER TABLE "SavedView" ADD COLUMN "teamId" TEXT;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN "teamId" TEXT;

-- CreateIndex
CREATE INDEX "RegistrationToken_teamId_idx" ON "RegistrationToken"("teamId");

-- CreateIndex
CREATE INDEX "Rollout_teamId_idx" ON "Rollout"("teamId");

-- CreateIndex
CREATE INDEX "WebhookSubscription_teamId_idx" ON "WebhookSubscription"("teamId");

