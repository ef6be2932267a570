import "server-only";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { log } from "@/lib/server/log";

const OWNER_ONLY_FILE = 0o600;
const OWNER_ONLY_DIR = 0o700;

/**
 * The data dir and the SQLite files (database, -wal, -shm) are readable by the service's user
 * only: they hold password hashes, token hashes and the sealed CA key. The database file is
 * created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the database file's
 * mode), and files left by older versions with wider modes are narrowed on every start.
 */
export function secureDataFiles(dataDir: string, sqliteFile: string | null) {
  mkdirSync(dataDir, { recursive: true, mode: OWNER_ONLY_DIR });
  narrow(dataDir, OWNER_ONLY_DIR);
  if (!sqliteFile) return;
  mkdirSync(path.dirname(sqliteFile), { recursive: true, mode: OWNER_ONLY_DIR });
  if (!existsSync(sqliteFile)) closeSync(openSync(sqliteFile, "a", OWNER_ONLY_FILE));
  for (const file of [sqliteFile, `${sqliteFile}-wal`, `${sqliteFile}-shm`, `${sqliteFile}-journal`]) {
    if (existsSync(file)) narrow(file, OWNER_ONLY_FILE);
  }
}

function narrow(file: string, mode: number) {
  try {
    chmodSync(file, mode);
  } catch (err) {
    // A file owned by another user (a mounted volume): say so, but do not refuse to start.
    log.warn("cannot restrict file permissions", { file, mode: mode.toString(8), error: (err as NodeJS.ErrnoException).code });
  }
}
