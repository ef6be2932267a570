import { adminRoute } from "@/lib/server/api/admin-route";
import { overview } from "@/lib/server/fleet/overview";

export const GET = adminRoute("viewer", async () => Response.json(await overview()));
