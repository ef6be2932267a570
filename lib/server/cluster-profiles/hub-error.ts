// Apart from hub-client.ts, so code that only needs to recognise the error does not load
// @kubernetes/client-node.

/** A failed hub call: `reason` is the metric label (unauthorized, forbidden, not_found, http_<code>, network, timeout). */
export class HubError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "HubError";
  }
}
