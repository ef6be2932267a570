import { readiness } from "@/lib/server/health/readiness";

export const dynamic = "force-dynamic";

/** Readiness: the database answers and every migration this build ships is applied. */
export async function GET() {
  const r = await readiness();
  return Response.json({ status: r.ready ? "ready" : "not_ready", ...r }, { status: r.ready ? 200 : 503 });
}
