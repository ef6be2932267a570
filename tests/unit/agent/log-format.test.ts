// --log-format=json: one JSON object per line (time, level, code, message, fields), redacted like
// the text lines, for log pipelines that parse JSON.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentArgs, UsageError } from "@/lib/agent/args";
import { consoleLogger, type LogLevel } from "@/lib/agent/log";

test("json: one object per line with time, level, code, message and fields; secrets redacted", () => {
  const lines: Array<[string, LogLevel]> = [];
  const logger = consoleLogger({
    format: "json",
    now: () => Date.UTC(2026, 10, 29, 10, 0, 0),
    fields: { cluster: "prod-eu-1" },
    write: (line, level) => lines.push([line, level]),
  });
  logger.log({
    level: "warn",
    code: "TOKEN_EXPIRED",
    message: 'the token frt_abc_secret expired\nmint "another"',
    fields: { attempt: 3, ok: false, none: null, skipped: undefined, echo: "Bearer abc.def" },
  });
  logger.log({ level: "debug", code: "HEARTBEAT_OK", message: "below the level" });
  assert.equal(lines.length, 1);
  const [line, level] = lines[0]!;
  assert.equal(level, "warn");
  assert.ok(!line.includes("\n"), "one line");
  assert.deepEqual(JSON.parse(line), {
    time: "2026-11-29T10:00:00.000Z",
    level: "warn",
    code: "TOKEN_EXPIRED",
    message: 'the token frt_[redacted] expired\nmint "another"',
    fields: { cluster: "prod-eu-1", attempt: 3, ok: false, none: null, echo: "Bearer [redacted]" },
  });
});

test("--log-format: text by default, json when asked, anything else refused", () => {
  const base = ["--server", "https://f:8443", "--name", "a", "--state-dir", "/tmp/s"];
  assert.equal(parseAgentArgs(base).logFormat, "text");
  assert.equal(parseAgentArgs([...base, "--log-format", "json"]).logFormat, "json");
  assert.equal(parseAgentArgs([...base, "--log-format=json"]).logFormat, "json");
  assert.throws(() => parseAgentArgs([...base, "--log-format", "logfmt"]), UsageError);
});
