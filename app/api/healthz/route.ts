export const dynamic = "force-dynamic";

/** Liveness: the process answers. Deliberately touches nothing else. */
export function GET() {
  return Response.json({ status: "ok" });
}
