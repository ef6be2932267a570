-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "notes" TEXT,
ADD COLUMN     "owner" TEXT;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "selector" TEXT;

