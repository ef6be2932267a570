-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "leaseCreatedAt" TIMESTAMP(3),
ADD COLUMN     "leaseHolder" TEXT,
ADD COLUMN     "leaseTransitions" INTEGER;

