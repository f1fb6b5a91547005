/**
 * A real OAuth 2.0 authorization server for the OAuth adapters' tests: `oauth2-mock-server` on
 * 127.0.0.1, made as strict as the providers whose contract the service follows, where the mock
 * itself is lenient: codes are single use and only those it issued; the code exchange must carry
 * the PKCE verifier of the code's S256 challenge; the client authenticates with HTTP Basic;
 * refresh tokens rotate (each works once, the newest only). It counts what it is asked, lets a
 * test set the tokens' lifetime and make the next refreshes fail, and knows which access tokens
 * it issued and has not revoked (what the stand-in of the provider's API accepts).
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  OAuth2Issuer,
  OAuth2Service,
  type MutableRedirectUri,
  type MutableResponse,
} from "oauth2-mock-server";

export const CLIENT_ID = "sitevoice-test-client";
export const CLIENT_SECRET = "test-client-secret-5d2c";

type Body = Record<string, string | undefined>;

export interface TestOAuthProvider {
  /** Its base URL, e.g. http://127.0.0.1:41234 (authorize and token under it). */
  url: string;
  /** SITEVOICE_OAUTH_CLIENTS's entry for an adapter type, pointing at this server. */
  clientsSetting(type: string): string;
  /**
   * What it was asked: every request to the token endpoint (`token`, answered or refused by the
   * mock itself, as a PKCE mismatch is), and of those the code exchanges and refreshes that got
   * to its answer; authorizations and revocations.
   */
  counts: { authorize: number; token: number; exchange: number; refresh: number; revoke: number };
  /** Seconds the next tokens live (`expires_in`); 3600 unless a test says otherwise. */
  expiresIn: number;
  /** How the next refreshes fail: `invalid_grant`, or 503 (the provider down); none by default. */
  failRefresh: "invalid_grant" | "unavailable" | undefined;
  /** Every access and refresh token it has issued, in order. */
  issuedTokens(): string[];
  /** Whether an access token is one it issued and has not revoked. */
  accepts(accessToken: string): boolean;
  /** Stops accepting the access tokens issued so far (as a provider may, before they expire). */
  forgetAccessTokens(): void;
  /** Refresh tokens it has revoked (RFC 7009). */
  revoked: Set<string>;
  /** Follows an authorization URL as a consenting user: the callback's query it redirects to. */
  consent(authorizationUrl: string): Promise<URLSearchParams>;
  stop(): Promise<void>;
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

function basicAuth(req: IncomingMessage): { id: string; secret: string } | undefined {
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return undefined;
  const [id, secret] = Buffer.from(header.slice(6), "base64").toString().split(":");
  return id === undefined || secret === undefined
    ? undefined
    : { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
}

export async function startOAuthProvider(): Promise<TestOAuthProvider> {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate("RS256");
  const service = new OAuth2Service(issuer);
  const mock = service.requestHandler;
  let revoke: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  // The mock's endpoints on a server of the test's own, which counts the token requests and
  // answers RFC 7009 revocation itself (the mock's /revoke does not read a form body).
  const server = createServer((req, res) => {
    if (req.url === "/revoke") return revoke(req, res);
    if (req.url === "/token") provider.counts.token += 1;
    mock(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer.url = url;
  const challenges = new Map<string, string>();
  const accessTokens = new Set<string>();
  const issued: string[] = [];
  let currentRefresh: string | undefined;
  const provider: TestOAuthProvider = {
    url,
    clientsSetting: (type) =>
      JSON.stringify({
        [type]: {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          authorization_url: `${url}/authorize`,
          token_url: `${url}/token`,
          revocation_url: `${url}/revoke`,
        },
      }),
    counts: { authorize: 0, token: 0, exchange: 0, refresh: 0, revoke: 0 },
    expiresIn: 3600,
    failRefresh: undefined,
    issuedTokens: () => [...issued],
    accepts: (token) => accessTokens.has(token),
    forgetAccessTokens: () => accessTokens.clear(),
    revoked: new Set(),
    async consent(authorizationUrl) {
      const answer = await fetch(authorizationUrl, { redirect: "manual" });
      const location = answer.headers.get("location");
      if (answer.status !== 302 || location === null) {
        throw new Error(`the authorization server answered ${answer.status}`);
      }
      return new URL(location).searchParams;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  service.on("beforeAuthorizeRedirect", (redirect: MutableRedirectUri, req) => {
    provider.counts.authorize += 1;
    const query = new URL(req.url ?? "", url).searchParams;
    const code = redirect.url.searchParams.get("code");
    // Codes are only issued with an S256 challenge, as providers that require PKCE do.
    if (code === null || query.get("code_challenge_method") !== "S256") {
      redirect.url.searchParams.delete("code");
      redirect.url.searchParams.set("error", "invalid_request");
      return;
    }
    challenges.set(code, query.get("code_challenge") ?? "");
  });

  service.on("beforeResponse", (response: MutableResponse, req: IncomingMessage) => {
    const body = (req as IncomingMessage & { body: Body }).body;
    const refuse = (status: number, error: string) => {
      response.statusCode = status;
      response.body = { error };
    };
    const client = basicAuth(req);
    if (client?.id !== CLIENT_ID || client.secret !== CLIENT_SECRET) {
      return refuse(401, "invalid_client");
    }
    if (body.grant_type === "authorization_code") {
      provider.counts.exchange += 1;
      const challenge = challenges.get(body.code ?? "");
      challenges.delete(body.code ?? "");
      if (challenge === undefined || body.code_verifier === undefined) {
        return refuse(400, "invalid_grant");
      }
      if (s256(body.code_verifier) !== challenge) return refuse(400, "invalid_grant");
    } else if (body.grant_type === "refresh_token") {
      provider.counts.refresh += 1;
      if (provider.failRefresh === "unavailable") return refuse(503, "temporarily_unavailable");
      if (provider.failRefresh === "invalid_grant" || body.refresh_token !== currentRefresh) {
        return refuse(400, "invalid_grant");
      }
    } else {
      return refuse(400, "unsupported_grant_type");
    }
    const tokens = response.body as Record<string, unknown>;
    delete tokens.id_token;
    tokens.expires_in = provider.expiresIn;
    currentRefresh = String(tokens.refresh_token);
    accessTokens.add(String(tokens.access_token));
    issued.push(String(tokens.access_token), currentRefresh);
  });

  revoke = (req, res) => {
    let form = "";
    req.on("data", (chunk: Buffer) => (form += chunk.toString()));
    req.on("end", () => {
      provider.counts.revoke += 1;
      const client = basicAuth(req);
      if (client?.id !== CLIENT_ID || client.secret !== CLIENT_SECRET) {
        res.writeHead(401, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: "invalid_client" }));
      }
      const token = new URLSearchParams(form).get("token");
      if (token !== null) {
        provider.revoked.add(token);
        if (token === currentRefresh) {
          currentRefresh = undefined;
          accessTokens.clear();
        }
      }
      res.writeHead(200).end();
    });
  };
  return provider;
}
