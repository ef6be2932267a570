import { z } from "zod";

// Deliberately loose: local installs use addresses like admin@localhost, which strict
// validators reject. Lower-cased so look-ups are case-insensitive. No control characters: a NUL
// in a sign-in's email failed the account look-up on PostgreSQL (500 instead of 401).
export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+$/, "must be an email address");
