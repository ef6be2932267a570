import "server-only";

/** Ids per statement: far below both engines' bound-parameter limits. */
export const IDS_PER_STATEMENT = 500;

/** `items` in slices of at most `size`, for statements that name each one. */
export function inChunks<T>(items: readonly T[], size = IDS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
