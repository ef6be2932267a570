// The e2e run's OpenID Provider, started by the config as a second web server
// (`node --import tsx e2e/support/oidc-provider.ts`); the console discovers it at the first SSO
// sign-in (e2e/ui/sso.spec.ts).
import { startOidcProvider } from "../../tests/helpers/oidc-provider";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_PORT, SSO_PEOPLE } from "./oidc";
import { BASE_URL } from "./run";

const provider = await startOidcProvider({
  port: OIDC_PORT,
  consoleUrl: BASE_URL,
  clientId: OIDC_CLIENT_ID,
  clientSecret: OIDC_CLIENT_SECRET,
  people: SSO_PEOPLE,
});
console.log(`loopback OpenID Provider at ${provider.issuer} for ${BASE_URL}`);
const stop = () => void provider.stop().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
