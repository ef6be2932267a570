-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "enrollment" TEXT;

-- CreateTable
CREATE TABLE "FleetSample" (
    "at" TIMESTAMP(3) NOT NULL,
    "ready" INTEGER NOT NULL,
    "notReady" INTEGER NOT NULL,
    "pending" INTEGER NOT NULL,
    "draining" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,

    CONSTRAINT "FleetSample_pkey" PRIMARY KEY ("at")
);

