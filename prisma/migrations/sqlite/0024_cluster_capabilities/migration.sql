-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN "capabilities" TEXT;

-- An agent's capabilities were the newest ClusterEvent of kind 'capabilities' (the set sorted,
-- comma-separated), which retention could prune: the newest one becomes the column, as a JSON
-- array (quotes and backslashes escaped), and the events go.
UPDATE "Cluster" SET "capabilities" = (
  SELECT CASE WHEN e."toValue" = '' THEN '[]'
    ELSE '["' || replace(replace(replace(e."toValue", '\', '\\'), '"', '\"'), ',', '","') || '"]' END
  FROM "ClusterEvent" e
  WHERE e."clusterId" = "Cluster"."id" AND e."kind" = 'capabilities'
  ORDER BY e."at" DESC, e."id" DESC
  LIMIT 1
);
DELETE FROM "ClusterEvent" WHERE "kind" = 'capabilities';
