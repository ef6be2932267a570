import { z } from "zod";
import { emailSchema } from "./email";
import { ROLES } from "./roles";

export const passwordSchema = z.string().min(12, "must be at least 12 characters").max(1024);

export const createUserSchema = z
  .object({
    email: emailSchema,
    name: z.string().trim().min(1).max(100).optional(),
    password: passwordSchema,
    role: z.enum(ROLES),
  })
  .strict();
export type CreateUserInput = z.infer<typeof createUserSchema>;

export const updateUserSchema = z
  .object({ role: z.enum(ROLES).optional(), disabled: z.boolean().optional(), password: passwordSchema.optional() })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "name at least one field" });
export type UpdateUserInput = z.infer<typeof updateUserSchema>;
