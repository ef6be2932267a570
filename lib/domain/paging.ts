import { z } from "zod";

// Cursors of the paged lists. Each is checked to be something a previous page could have handed
// out, so a forged one (a number past 2^53 or 2^31, negative, fractional, or not a number) is a
// 400 naming the cursor, never a database error.

const NOT_A_CURSOR = "not a cursor from a previous page";

/** The largest id of an autoincrement `Int` key (PostgreSQL `integer`). */
export const MAX_ROW_ID = 2_147_483_647;

/** Keyset cursor: the id of the last entry of the previous page (audit log, registration attempts). */
export const idCursorSchema = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, NOT_A_CURSOR)
  .transform(Number)
  .refine((n) => n <= MAX_ROW_ID, NOT_A_CURSOR);

/** Offset cursors stop here: far past any fleet, and an exact integer in every engine. */
export const MAX_OFFSET = 999_999_999;

/** An offset cursor's decoded text (`String(offset)`) back to the offset, or null if it is not one. */
export function offsetFromCursorText(text: string): number | null {
  if (!/^(0|[1-9]\d{0,8})$/.test(text)) return null;
  return Number(text);
}
