import { z } from "zod";
import { emailSchema } from "./email";
import { FLEET_ROLES } from "./roles";

export const passwordSchema = z.string().min(12, "must be at least 12 characters").max(1024);

export const createUserSchema = z
  .object({
    email: emailSchema,
    name: z.string().trim().min(1).max(100).optional(),
    /** Left out: the answer carries a one-time set-password link for them instead. */
    password: passwordSchema.optional(),
    role: z.enum(FLEET_ROLES),
  })
  .strict();
export type CreateUserInput = z.infer<typeof createUserSchema>;

export const updateUserSchema = z
  .object({ role: z.enum(FLEET_ROLES).optional(), disabled: z.boolean().optional(), password: passwordSchema.optional() })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "name at least one field" });
export type UpdateUserInput = z.infer<typeof updateUserSchema>;

/** How long a set-password link works: long enough for a colleague in another time zone. */
export const PASSWORD_LINK_HOURS = 48;

/** The secret part of a set-password link (`#` fragment of /set-password): 32 bytes, base64url. */
export const passwordLinkTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "is not a set-password link");

export const redeemPasswordLinkSchema = z.object({ token: passwordLinkTokenSchema, password: passwordSchema }).strict();
export const checkPasswordLinkSchema = z.object({ token: passwordLinkTokenSchema }).strict();
