-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "legacySignature" BOOLEAN NOT NULL DEFAULT false;

