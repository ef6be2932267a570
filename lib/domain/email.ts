import { z } from "zod";

// Deliberately loose: local installs use addresses like admin@localhost, which strict
// validators reject. Lower-cased so look-ups are case-insensitive.
export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+$/, "must be an email address");
