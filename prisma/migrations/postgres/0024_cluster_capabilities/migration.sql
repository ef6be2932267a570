-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "capabilities" TEXT;

-- An agent's capabilities were the newest ClusterEvent of kind 'capabilities' (the set sorted,
-- comma-separated), which retention could prune: the newest one becomes the column, as a JSON
-- array, and the events go.
UPDATE "Cluster" c SET "capabilities" = latest."capabilities"
FROM (
  SELECT DISTINCT ON (e."clusterId") e."clusterId", array_to_json(string_to_array(e."toValue", ','))::text AS "capabilities"
  FROM "ClusterEvent" e
  WHERE e."kind" = 'capabilities'
  ORDER BY e."clusterId", e."at" DESC, e."id" DESC
) latest
WHERE latest."clusterId" = c."id";
DELETE FROM "ClusterEvent" WHERE "kind" = 'capabilities';
