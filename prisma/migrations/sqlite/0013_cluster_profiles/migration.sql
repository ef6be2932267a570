-- CreateTable
CREATE TABLE "ClusterProfileExporter" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "namespace" TEXT NOT NULL,
    "sealedKubeconfig" TEXT,
    "hubServer" TEXT,
    "lastExportAt" DATETIME,
    "lastError" TEXT,
    "lastErrorAt" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ClusterProfileExport" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "objectHash" TEXT NOT NULL,
    "statusHash" TEXT NOT NULL,
    "generation" INTEGER,
    "appliedAt" DATETIME NOT NULL
);

