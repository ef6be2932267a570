-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "leaseCreatedAt" DATETIME;
ALTER TABLE "Cluster" ADD COLUMN "leaseHolder" TEXT;
ALTER TABLE "Cluster" ADD COLUMN "leaseTransitions" INTEGER;

