-- AlterTable
ALTER TABLE "RegistrationAttempt" ADD COLUMN     "count" INTEGER NOT NULL DEFAULT 1;

