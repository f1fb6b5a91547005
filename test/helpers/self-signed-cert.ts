/**
 * A throwaway self-signed certificate for one host name, made with the openssl command line, for
 * tests that must show a TLS client checks the certificate against a NAME. Undefined when openssl
 * is missing, so the caller can skip (under CI=true it throws: CI has openssl).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface SelfSignedCert {
  cert: Buffer;
  key: Buffer;
}

export function selfSignedCert(hostname: string): SelfSignedCert | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-tls-"));
  try {
    try {
      execFileSync(
        "openssl",
        [
          ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"],
          ...["-nodes", "-days", "1", "-subj", `/CN=${hostname}`],
          ...["-addext", `subjectAltName=DNS:${hostname}`],
          ...["-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")],
        ],
        { stdio: "ignore" },
      );
    } catch {
      if (process.env.CI === "true") throw new Error("openssl is needed to make a certificate");
      return undefined;
    }
    return {
      cert: fs.readFileSync(path.join(dir, "cert.pem")),
      key: fs.readFileSync(path.join(dir, "key.pem")),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
