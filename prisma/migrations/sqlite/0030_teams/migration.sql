-- AlterTable
ALTER TABLE "User" ADD COLUMN "ssoGroups" TEXT;

-- AlterTable
ALTER TABLE "AuditLog" ADD COLUMN "allowedRole" TEXT;
ALTER TABLE "AuditLog" ADD COLUMN "allowedTeam" TEXT;

-- CreateTable
CREATE TABLE "Team" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "selector" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "TeamMember" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "teamId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "userId" TEXT,
    "apiKeyId" TEXT,
    "ssoGroup" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TeamMember_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Team_name_key" ON "Team"("name");

-- CreateIndex
CREATE INDEX "TeamMember_userId_idx" ON "TeamMember"("userId");

-- CreateIndex
CREATE INDEX "TeamMember_apiKeyId_idx" ON "TeamMember"("apiKeyId");

-- CreateIndex
CREATE UNIQUE INDEX "TeamMember_teamId_userId_key" ON "TeamMember"("teamId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "TeamMember_teamId_apiKeyId_key" ON "TeamMember"("teamId", "apiKeyId");

-- CreateIndex
CREATE UNIQUE INDEX "TeamMember_teamId_ssoGroup_key" ON "TeamMember"("teamId", "ssoGroup");

