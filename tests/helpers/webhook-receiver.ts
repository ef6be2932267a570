// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request (its
// path, headers and raw body) and answers as the test says (a status, or never).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "@/lib/domain/webhook-signature";
import type { WebhookPayload } from "@/lib/domain/webhooks";

export type Received = { path: string; headers: http.IncomingHttpHeaders; body: string; at: number; status?: number };
export type Answer = (r: Received) => number | "hang";

export async function startReceiver() {
  const received: Received[] = [];
  let answer: Answer = () => 200;
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = {
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(r);
      const status = answer(r);
      if (status === "hang") hanging.push(res);
      else {
        r.status = status;
        res.writeHead(status, { "content-type": "text/plain" }).end("ok");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (a: Answer) => (answer = a),
    payloads: () => received.map((r) => JSON.parse(r.body) as WebhookPayload),
    async close() {
      hanging.forEach((res) => res.destroy());
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The receiver's side of the contract (docs/integrations/webhooks.md), checked when the request arrived. */
export function signatureValid(r: Received, secret: string): boolean {
  return verifyWebhookSignature({
    secret,
    body: r.body,
    timestamp: r.headers["x-fleet-timestamp"] as string | undefined,
    signature: r.headers["x-fleet-signature-v2"] as string | undefined,
    now: new Date(r.at),
  }).ok;
}
