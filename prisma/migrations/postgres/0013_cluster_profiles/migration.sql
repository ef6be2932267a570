-- CreateTable
CREATE TABLE "ClusterProfileExporter" (
    "id" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "namespace" TEXT NOT NULL,
    "sealedKubeconfig" TEXT,
    "hubServer" TEXT,
    "lastExportAt" TIMESTAMP(3),
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterProfileExporter_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClusterProfileExport" (
    "name" TEXT NOT NULL,
    "objectHash" TEXT NOT NULL,
    "statusHash" TEXT NOT NULL,
    "generation" INTEGER,
    "appliedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterProfileExport_pkey" PRIMARY KEY ("name")
);

