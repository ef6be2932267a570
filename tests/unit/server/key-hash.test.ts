// A request's key hash is read straight from the SPKI PEM on the registration path; it must be
// the very hash Node computes from the key, and the one a certificate for that key gives.
import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { test } from "node:test";
import { validateCsr } from "@/lib/server/pki/csr";
import { certificateKeyHash, keyHashOf } from "@/lib/server/registration-requests/key-hash";
import { makeCsr, selfSignedClientCert } from "../../helpers/csr";

const nodeHash = (pem: string) =>
  createHash("sha256")
    .update(createPublicKey(pem).export({ type: "spki", format: "der" }))
    .digest("hex");

test("the PEM fast path hashes exactly what Node exports from the key", () => {
  const { csr } = makeCsr();
  const pem = validateCsr(csr).publicKeyPem;
  assert.match(pem, /BEGIN PUBLIC KEY/);
  assert.equal(keyHashOf(pem), nodeHash(pem));
  assert.equal(keyHashOf(pem.replace(/\n/g, "\r\n")), nodeHash(pem), "CRLF line ends");
  // A PKCS#1 "RSA PUBLIC KEY" PEM takes the parsing path and still agrees.
  const pkcs1 = createPublicKey(pem).export({ type: "pkcs1", format: "pem" }).toString();
  assert.equal(keyHashOf(pkcs1), nodeHash(pem));
});

test("a certificate for the key has the same hash; a bad certificate none", () => {
  const { cert, key } = selfSignedClientCert();
  const publicPem = createPublicKey(createPrivateKey(key)).export({ type: "spki", format: "pem" }).toString();
  assert.equal(certificateKeyHash(cert), keyHashOf(publicPem));
  assert.equal(certificateKeyHash("not a certificate"), null);
});
