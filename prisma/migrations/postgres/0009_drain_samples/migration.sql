-- CreateTable
CREATE TABLE "DrainSample" (
    "id" SERIAL NOT NULL,
    "clusterId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "pods" INTEGER NOT NULL,

    CONSTRAINT "DrainSample_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "DrainSample_clusterId_at_idx" ON "DrainSample"("clusterId", "at");

-- AddForeignKey
ALTER TABLE "DrainSample" ADD CONSTRAINT "DrainSample_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

