-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "userPodCount" INTEGER;

-- AlterTable
ALTER TABLE "Directive" ADD COLUMN     "failedReason" TEXT;

