-- DropIndex
DROP INDEX "RegistrationRequest_pendingName_key";

-- AlterTable
ALTER TABLE "RegistrationRequest" DROP COLUMN "pendingName",
ADD COLUMN     "pendingKey" TEXT;

-- Requests waiting now keep waiting, each under its name and key.
UPDATE "RegistrationRequest" SET "pendingKey" = "name" || ':' || "keyHash" WHERE "state" = 'pending';

-- CreateIndex
CREATE UNIQUE INDEX "RegistrationRequest_pendingKey_key" ON "RegistrationRequest"("pendingKey");

