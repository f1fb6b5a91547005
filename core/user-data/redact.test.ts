import { expect } from "chai";
import { REDACTED, Redactor } from "./redact.ts";

describe("the erasure's redactor", () => {
  const redactor = new Redactor(["Ana Quintero", "ana@example.com", "+1 (555) 010-2030", "ab"]);

  it("replaces the visitor's own values in any case, wherever they appear", () => {
    expect(redactor.text("Spoke with ana quintero today")).to.equal(`Spoke with ${REDACTED} today`);
    expect(redactor.text("call +1 (555) 010-2030")).to.equal(`call ${REDACTED}`);
  });

  it("ignores known values under three characters, which would redact everything", () => {
    expect(redactor.text("about a cab")).to.equal("about a cab");
  });

  it("redacts email addresses, phone numbers and IP addresses that look like them", () => {
    expect(redactor.text("write bo+x@mail.example.org")).to.equal(`write ${REDACTED}`);
    expect(redactor.text("ring 020 7946 0958 or +44 20 7946 0958")).to.equal(
      `ring ${REDACTED} or ${REDACTED}`,
    );
    expect(redactor.text("from 203.0.113.9 and 2001:db8::1")).to.equal(
      `from ${REDACTED} and ${REDACTED}`,
    );
  });

  it("keeps what only looks like numbers: dates, times, prices, short counts", () => {
    for (const text of [
      "2026-11-26T18:20:15.000Z",
      "at 12:30:45",
      "costs 1,299.00",
      "order 12345",
      "version 1.2.3.4.5",
    ]) {
      expect(redactor.text(text), text).to.equal(text);
    }
  });

  it("drops URL query strings and fragments, keeping the path", () => {
    expect(redactor.text("see https://shop.example/p/7?email=x%40y.z&ref=1#top now")).to.equal(
      "see https://shop.example/p/7 now",
    );
    expect(redactor.url("https://shop.example/contact?from=ana%40example.com")).to.equal(
      "https://shop.example/contact",
    );
    expect(redactor.url(null)).to.equal(null);
  });

  it("redacts a user agent whole", () => {
    expect(redactor.text("Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/132.0")).to.equal(
      REDACTED,
    );
  });

  it("redacts JSON deeply, and the values of fields named for personal data", () => {
    expect(
      redactor.json({
        query: "sofa for ana@example.com",
        name: "Somebody Else",
        nested: [
          { phone: 5550102030, ip: "10.0.0.1" },
          { count: 3, ok: true },
        ],
        user_agent: "curl/8.4.0",
        empty: null,
      }),
    ).to.deep.equal({
      query: `sofa for ${REDACTED}`,
      name: REDACTED,
      nested: [
        { phone: REDACTED, ip: REDACTED },
        { count: 3, ok: true },
      ],
      user_agent: REDACTED,
      empty: null,
    });
  });
});
