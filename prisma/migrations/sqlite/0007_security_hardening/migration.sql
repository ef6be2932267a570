-- AlterTable
ALTER TABLE "RegistrationToken" ADD COLUMN "clusterId" TEXT;

-- AlterTable
ALTER TABLE "Certificate" ADD COLUMN "issuerFingerprint" TEXT;

-- CreateTable
CREATE TABLE "RevokedSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "LoginThrottle" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" DATETIME,
    "lastFailureAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "oidcSubject" TEXT,
    "disabledAt" DATETIME,
    "lastLoginAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "sessionVersion" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_User" ("createdAt", "disabledAt", "email", "id", "lastLoginAt", "name", "oidcSubject", "passwordHash", "role", "updatedAt") SELECT "createdAt", "disabledAt", "email", "id", "lastLoginAt", "name", "oidcSubject", "passwordHash", "role", "updatedAt" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "RevokedSession_expiresAt_idx" ON "RevokedSession"("expiresAt");

-- CreateIndex
CREATE INDEX "RegistrationToken_clusterId_idx" ON "RegistrationToken"("clusterId");

-- CreateIndex
CREATE INDEX "Certificate_issuerFingerprint_idx" ON "Certificate"("issuerFingerprint");

