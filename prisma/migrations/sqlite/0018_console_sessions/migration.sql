-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "RevokedSession";
PRAGMA foreign_keys=on;

-- CreateTable
CREATE TABLE "ConsoleSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ConsoleSession_expiresAt_idx" ON "ConsoleSession"("expiresAt");

-- CreateIndex
CREATE INDEX "ConsoleSession_userId_idx" ON "ConsoleSession"("userId");
