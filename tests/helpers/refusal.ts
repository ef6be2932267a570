import assert from "node:assert/strict";
import { ApiError } from "@/lib/server/api/errors";

/** The ApiError a service call is refused with (its code, message and details); fails when it is not refused. */
export async function refusal(work: Promise<unknown>): Promise<ApiError> {
  try {
    await work;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail("expected a refusal");
}
