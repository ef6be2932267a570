-- AlterTable
ALTER TABLE "Directive" ADD COLUMN "failedCode" TEXT;

-- AlterTable
ALTER TABLE "RolloutCluster" ADD COLUMN "handoff" TEXT;

