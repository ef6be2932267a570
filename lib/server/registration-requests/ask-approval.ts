import "server-only";
import type { RegisterRequest } from "@/lib/domain/agent-protocol";
import { checkCsr } from "@/lib/server/pki/issue-certificate";
import type { RegistrationToken, RegistrationTrace } from "@/lib/server/registration/authenticate-token";
import { planRegistration, type ExistingCluster } from "@/lib/server/registration/plan-registration";
import { tokenExpired, tokenRevoked } from "@/lib/server/tokens/token-refusals";
import { holdsUseFor } from "./held-uses";
import { keyHashOf } from "./key-hash";
import { recordPendingRequest } from "./record-request";
import { answerKnownKey, type RepeatAnswer } from "./repeat-request";

/**
 * A registration through a token that requires approval: a key that asked for the name before is
 * answered from its request (waiting, denied, expired, or its certificate to collect); a new
 * cluster is checked in full (token, scope, labels, CSR, not signed yet) and recorded as a
 * pending request, beside any other key's request for the name. Null: not a case for approval (a
 * re-registration with proof, a claim with a bound token), or nothing left to collect: the caller
 * registers it as usual.
 */
export async function askApproval(
  req: RegisterRequest,
  token: RegistrationToken,
  existing: ExistingCluster | null,
  settings: { deniedKeyCooldownHours: number; requiredLabels: string[]; certificateRenewalGraceDays: number },
  trace: RegistrationTrace,
  now: Date,
): Promise<RepeatAnswer | null> {
  const csr = await checkCsr(req.csr);
  const keyHash = keyHashOf(csr.publicKeyPem);
  const ask = { tokenId: token.id, revoked: token.revoked, cooldownHours: settings.deniedKeyCooldownHours };
  const answer = await answerKnownKey(req.name, keyHash, ask, trace.sourceAddress, now);
  if (answer) return answer;
  if (token.revoked) throw tokenRevoked();
  if (existing) return null;
  if (token.expired) throw tokenExpired();
  // A used-up token still adds a candidate for a name one of its requests holds a use for.
  const exhausted = token.exhausted && !(await holdsUseFor(token.id, req.name));
  const plan = await planRegistration(req, { ...token, exhausted }, null, csr.publicKeyPem, {
    requiredLabels: settings.requiredLabels,
    now,
    graceDays: settings.certificateRenewalGraceDays,
  });
  return recordPendingRequest({ req, token, keyHash, labels: plan.labels, sourceAddress: trace.sourceAddress, now });
}
