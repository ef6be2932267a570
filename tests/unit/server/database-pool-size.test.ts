// The PostgreSQL pool's size (lib/env.ts): DATABASE_POOL_SIZE, else the URL's connection_limit
// (taken out of the URL the driver sees), else 10; a bad value stops the start with its name.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_POOL_SIZE, EnvError, parseEnv } from "@/lib/env";

const pool = (vars: Record<string, string>) => {
  const { database } = parseEnv({ NODE_ENV: "test", DATABASE_URL: "postgresql://fleet@db.internal:5432/fleet", ...vars });
  assert.equal(database.dialect, "postgres");
  return database;
};

test("the pool size comes from DATABASE_POOL_SIZE, else connection_limit, else the default", () => {
  assert.equal(pool({}).poolSize, DEFAULT_POOL_SIZE);
  assert.equal(pool({ DATABASE_POOL_SIZE: "25" }).poolSize, 25);
  const fromUrl = pool({ DATABASE_URL: "postgresql://fleet@db.internal:5432/fleet?connection_limit=4&sslmode=require" });
  assert.equal(fromUrl.poolSize, 4);
  assert.equal(
    fromUrl.url,
    "postgresql://fleet@db.internal:5432/fleet?sslmode=require",
    "the driver never sees connection_limit",
  );
  assert.equal(
    pool({ DATABASE_URL: "postgresql://fleet@db.internal/fleet?connection_limit=4", DATABASE_POOL_SIZE: "30" }).poolSize,
    30,
  );
});

test("a pool size that is not a whole number from 1 to 1000 is refused at start, by name", () => {
  assert.throws(
    () => pool({ DATABASE_POOL_SIZE: "0" }),
    (e: unknown) => e instanceof EnvError && /DATABASE_POOL_SIZE/.test(e.message),
  );
  assert.throws(() => pool({ DATABASE_POOL_SIZE: "many" }), /DATABASE_POOL_SIZE/);
  assert.throws(() => pool({ DATABASE_URL: "postgresql://fleet@db.internal/fleet?connection_limit=-1" }), /connection_limit/);
});
