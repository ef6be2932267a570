import assert from "node:assert/strict";
import { test } from "node:test";
import { SIGN_IN_ERROR_MESSAGES, SSO_REFUSALS, withKnownErrorCode } from "@/lib/domain/sign-in-errors";

const origin = "http://127.0.0.1:3000";

test("known codes pass as next-auth wrote them", () => {
  for (const url of [
    `${origin}/api/auth/error?error=Callback`,
    `${origin}/login?error=SsoEmailLinked`,
    `${origin}/api/auth/signin?callbackUrl=%2Fclusters&error=OAuthCallback`,
    "/login?error=CredentialsSignin",
    `${origin}/clusters`,
    `${origin}/login`,
  ]) {
    assert.equal(withKnownErrorCode(url), url);
  }
});

test("an exception's text in ?error= becomes a fixed code, and nothing of it is kept", () => {
  const prisma = "\nInvalid `prisma.user.create()` invocation:\n\nUnique constraint failed on the fields: (`email`)";
  assert.equal(
    withKnownErrorCode(`${origin}/api/auth/error?error=${encodeURIComponent(prisma)}`),
    `${origin}/api/auth/error?error=Callback`,
  );
  // next-auth writes the error page's redirect unencoded: text can spill into other parameters and the fragment.
  assert.equal(withKnownErrorCode(`/login?error=Callback&leak=SELECT * FROM "User"#frag`), "/login?error=Callback");
  assert.equal(withKnownErrorCode(`${origin}/login?error=connect ECONNREFUSED 10.0.0.5:5432`), `${origin}/login?error=Callback`);
  assert.equal(
    withKnownErrorCode(`${origin}/api/auth/signin?callbackUrl=%2F&error=oops`),
    `${origin}/api/auth/signin?callbackUrl=%2F&error=Callback`,
  );
});

test("URLs elsewhere are not the sign-in pages' business", () => {
  const provider = "https://idp.example/authorize?error=whatever";
  assert.equal(withKnownErrorCode(provider), provider);
});

test("every single sign-on refusal has words on the login page", () => {
  for (const code of Object.values(SSO_REFUSALS)) assert.ok(SIGN_IN_ERROR_MESSAGES[code], code);
});
