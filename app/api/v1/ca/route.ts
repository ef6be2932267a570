import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getCaStatus } from "@/lib/server/pki/ca-rollover";

export const dynamic = "force-dynamic";

/** The fleet CAs (public facts: fingerprint, subject, expiry, state) and a rollover's progress. */
export const GET = adminRoute(settingsRoutes.ca, async () => getCaStatus());
