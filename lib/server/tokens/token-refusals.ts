import "server-only";
import { ApiError } from "@/lib/server/api/errors";

// A registration token refused, in one text per code: the agent logs it and the attempts log
// keeps it, whichever step found the token unusable (authentication, the plan, or the write that
// lost the race for its last use).

export const tokenExhausted = () =>
  new ApiError("token_exhausted", "The registration token has no uses left; ask an operator for a new one.");
export const tokenExpired = () =>
  new ApiError("token_expired", "The registration token has expired; ask an operator for a new one.");
export const tokenRevoked = () =>
  new ApiError("token_revoked", "The registration token was revoked; ask an operator for a new one.");
