-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "notes" TEXT;
ALTER TABLE "Cluster" ADD COLUMN "owner" TEXT;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN "selector" TEXT;

