import { adminRoute } from "@/lib/server/api/admin-route";
import { versionsOverview } from "@/lib/server/versions/compatibility";

export const GET = adminRoute("viewer", async () => Response.json(await versionsOverview()));
