-- CreateTable
CREATE TABLE "DrainSample" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "clusterId" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "pods" INTEGER NOT NULL,
    CONSTRAINT "DrainSample_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "DrainSample_clusterId_at_idx" ON "DrainSample"("clusterId", "at");

