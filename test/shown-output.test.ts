/**
 * How the README test reads a shown output (`# → {"success":true,…}`) and compares it with an
 * answer: what `…` lets through, what it does not, and what is masked.
 */
import { expect } from "chai";
import { differenceFrom, parseShown } from "./helpers/shown-output.ts";

const compare = (shown: string, answer: unknown) => differenceFrom(parseShown(shown).shown, answer);

describe("a README shown output compared with an answer", () => {
  it("matches an object with the members shown and … for the others", () => {
    expect(compare('{"a":1,…}', { a: 1, b: 2 })).to.equal(undefined);
  });

  it("refuses an answer with members an object without … does not show", () => {
    expect(compare('{"a":1}', { a: 1, b: 2 })).to.match(/answered b too/);
  });

  it("refuses an answer missing a member shown", () => {
    expect(compare('{"a":1,"c":3,…}', { a: 1 })).to.match(/\$\.c: shown, but not in the answer/);
  });

  it("refuses a different value, naming its path", () => {
    expect(
      compare('{"data":{"items":[{"name":"Panna cotta",…},…]}}', {
        data: { items: [{ name: "Cannoli siciliani" }, { name: "Panna cotta" }] },
      }),
    ).to.match(/\$\.data\.items/);
  });

  it("matches the first elements of an array followed by …", () => {
    expect(compare('[{"name":"Cannoli",…},…]', [{ name: "Cannoli", price: 6 }, {}])).to.equal(
      undefined,
    );
  });

  it("refuses an array longer than shown without …", () => {
    expect(compare("[1,2]", [1, 2, 3])).to.be.a("string");
  });

  it("takes … as any value", () => {
    expect(compare('{"latency_ms":…}', { latency_ms: 3 })).to.equal(undefined);
  });

  it("takes … inside a string as any characters", () => {
    expect(
      compare(
        '"https://airtable.com/authorize?state=fjord.…"',
        "https://airtable.com/authorize?state=fjord.x1y2",
      ),
    ).to.equal(undefined);
  });

  it("refuses a string whose fixed parts differ", () => {
    expect(compare('"state=fjord.…"', "state=other.x1y2")).to.be.a("string");
  });

  it("masks a prefixed id: crawl_01jd… matches any crawl id", () => {
    expect(compare('"crawl_01jd…"', "crawl_01kb3m7x9qzv4n2c8d5e6f7g8h")).to.equal(undefined);
  });

  it("keeps an id's prefix: crawl_01jd… does not match a site id", () => {
    expect(compare('"crawl_01jd…"', "site_01kb3m7x9qzv4n2c8d5e6f7g8h")).to.be.a("string");
  });

  it("masks timestamps: any ISO time matches a shown one", () => {
    expect(compare('"2026-11-26T10:14:05.123Z"', "2027-01-02T03:04:05.678Z")).to.equal(undefined);
  });

  it("masks a shown time cut short with …", () => {
    expect(compare('"2026-12-26T…"', "2027-01-02T03:04:05.678Z")).to.equal(undefined);
  });

  it("does not take a time for a number", () => {
    expect(compare('"2026-12-26T…"', 5)).to.be.a("string");
  });

  it("compares literals exactly", () => {
    expect(compare('{"ok":true,"n":null}', { ok: false, n: null })).to.match(/\$\.ok/);
  });

  it("reads where a shown output ends, leaving prose after it", () => {
    const text = '{"a":[1,…]} and then words';
    expect(text.slice(parseShown(text).end)).to.equal(" and then words");
  });

  it("refuses a shown output that is not JSON with …", () => {
    expect(() => parseShown('{"a":}')).to.throw(/expected a value/);
  });
});
