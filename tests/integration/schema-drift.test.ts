// No drift: a database built by the committed migrations has exactly the schema of the current
// models (prisma/<engine>/schema.prisma), compared by introspecting both databases.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { migrate } from "@/lib/server/db/migrate";
import { diffSnapshots, type SchemaSnapshot } from "../helpers/introspect";
import { modelSql } from "../helpers/model-sql";
import { testEngine, freshDatabases, type TestDatabase } from "../helpers/test-database";

const engine = testEngine();
const databases = freshDatabases();

describe(`schema drift on ${engine}`, () => {
  let migrated: TestDatabase;
  let fromModels: TestDatabase;
  let sql: string;

  before(async () => {
    sql = modelSql(engine);
    [migrated, fromModels] = await Promise.all([databases.create(), databases.create()]);
    await migrate(migrated.database);
    await fromModels.exec(sql);
  });

  test("prisma migrate diff produced SQL for the models", () => {
    assert.match(sql, /CREATE TABLE "User"/);
  });

  test("the committed migrations build exactly the schema of the current models", async () => {
    const [actual, expected] = await Promise.all([migrated.introspect(), fromModels.introspect()]);
    assert.ok(expected.tables.length > 10, `the models define the domain's tables (found ${expected.tables.join(", ")})`);
    const differences = diffSnapshots(actual, expected, { actual: "migrated database", expected: "current models" });
    assert.deepEqual(
      differences,
      [],
      `The committed migrations do not match prisma/models.prisma. Generate a new migration with\n` +
        `  npx prisma migrate diff --config prisma/${engine}.config.ts --from-schema-datamodel <previous schema> ` +
        `--to-schema-datamodel prisma/${engine}/schema.prisma --script\n` +
        `for both engines. Differences:\n  ${differences.join("\n  ")}`,
    );
  });

  test("the comparison notices a difference (an extra column, a dropped index)", async () => {
    const scratch = await databases.create();
    await scratch.exec(sql);
    const clean: SchemaSnapshot = await scratch.introspect();
    await scratch.exec(`ALTER TABLE "User" ADD COLUMN "nickname" TEXT`);
    await scratch.exec(`DROP INDEX "User_email_key"`);
    const differences = diffSnapshots(await scratch.introspect(), clean);
    assert.ok(
      differences.some((d) => d.includes("User.nickname")),
      `an added column is reported: ${differences.join("; ")}`,
    );
    assert.ok(
      differences.some((d) => d.includes("User_email_key")),
      `a dropped index is reported: ${differences.join("; ")}`,
    );
  });
});
