-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "enrollment" TEXT;

-- CreateTable
CREATE TABLE "FleetSample" (
    "at" DATETIME NOT NULL PRIMARY KEY,
    "ready" INTEGER NOT NULL,
    "notReady" INTEGER NOT NULL,
    "pending" INTEGER NOT NULL,
    "draining" INTEGER NOT NULL,
    "total" INTEGER NOT NULL
);

