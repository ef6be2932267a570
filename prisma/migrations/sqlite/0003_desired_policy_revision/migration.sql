-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "desiredPolicyRevision" TEXT;

