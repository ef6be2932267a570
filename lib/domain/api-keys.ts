import { z } from "zod";
import { FLEET_ROLES } from "./roles";

export const createApiKeySchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: z.enum(FLEET_ROLES),
    /** days until it expires; omitted: never */
    expiresInDays: z.number().int().min(1).max(3650).optional(),
  })
  .strict();
