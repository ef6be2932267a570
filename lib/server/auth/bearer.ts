import "server-only";

/** The value of `Authorization: Bearer <value>`, or null when the header is missing or another scheme. */
export function bearerToken(authorization: string | null): string | null {
  return (authorization && /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]) || null;
}
