import { dispatchRequest } from "@/lib/server/agent-port/protocol-dispatch";

export const dynamic = "force-dynamic";

// Every agent endpoint, through the protocol's one table (lib/server/agent-port/protocol-handlers.ts).
// The agent port serves them without Next; what reaches Next is the CA download on the console
// port and spellings the table does not know (404/405 in the protocol's JSON).
export const GET = dispatchRequest;
export const POST = dispatchRequest;
export const PUT = dispatchRequest;
export const PATCH = dispatchRequest;
export const DELETE = dispatchRequest;
