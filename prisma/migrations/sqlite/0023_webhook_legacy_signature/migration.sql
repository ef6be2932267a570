-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookSubscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'json',
    "selector" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "legacySignature" BOOLEAN NOT NULL DEFAULT false,
    "secret" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_WebhookSubscription" ("createdAt", "createdBy", "enabled", "events", "format", "id", "secret", "selector", "updatedAt", "url") SELECT "createdAt", "createdBy", "enabled", "events", "format", "id", "secret", "selector", "updatedAt", "url" FROM "WebhookSubscription";
DROP TABLE "WebhookSubscription";
ALTER TABLE "new_WebhookSubscription" RENAME TO "WebhookSubscription";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

