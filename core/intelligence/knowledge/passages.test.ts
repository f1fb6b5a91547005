import { expect } from "chai";
import { MAX_PASSAGE_CHARS, type PageContent, type PageSection } from "./knowledge-types.ts";
import { toPassages } from "./passages.ts";

const URL = "https://dental.example/prices";

const page = (sections: PageSection[], title: string | null = "Prices"): PageContent => ({
  url: URL,
  title,
  language: "en",
  sections,
});

const section = (text: string, headings = ["Prices"], sectionId: string | null = "prices") => ({
  headings,
  sectionId,
  text,
});

/** The passages' texts of one section whose text is `text`. */
const parts = (text: string) => toPassages(page([section(text)])).map((passage) => passage.text);

/** `count` words of `length` letters, spaced. */
const words = (count: number, length = 4) =>
  Array.from({ length: count }, () => "w".repeat(length)).join(" ");

describe("toPassages", () => {
  it("gives a passage per section, numbered across the page from 0, with its heading path and id", () => {
    expect(
      toPassages(
        page([
          section("Check-up €60.", ["Prices", "Check-ups"], "check-ups"),
          section("Cleaning €90.", ["Prices", "Cleaning", "Children"], null),
        ]),
      ),
    ).to.deep.equal([
      {
        id: `${URL}#0`,
        url: URL,
        title: "Prices",
        heading: "Prices > Check-ups",
        sectionId: "check-ups",
        text: "Check-up €60.",
      },
      {
        id: `${URL}#1`,
        url: URL,
        title: "Prices",
        heading: "Prices > Cleaning > Children",
        sectionId: null,
        text: "Cleaning €90.",
      },
    ]);
  });

  it("gives the text before the first heading an empty heading", () => {
    expect(toPassages(page([section("Welcome.", [], null)]))[0]!.heading).to.equal("");
  });

  it("takes the URL's path for the title of a page without one", () => {
    expect(toPassages(page([section("x")], null))[0]!.title).to.equal("/prices");
  });

  it("has no passages for a page without sections", () => {
    expect(toPassages(page([]))).to.deep.equal([]);
  });

  it(`keeps a section of ${MAX_PASSAGE_CHARS} characters whole`, () => {
    const text = "x".repeat(MAX_PASSAGE_CHARS);
    expect(parts(text)).to.deep.equal([text]);
  });

  it("cuts a longer section at the last line end near the limit", () => {
    const first = `${words(100)}.\n${words(50)}`; // 500 + 1 + 249 characters
    const second = words(20);
    expect(parts(`${first}\n${second}`)).to.deep.equal([first, second]);
  });

  it("cuts at the last sentence end near the limit when no line ends near it", () => {
    const early = words(20); // a line end at 99: too far from the limit
    const first = `${early}\n${words(100)}. ${words(30)}!`; // 99 + 1 + 500 + 1 + 149 + 1
    const second = `${words(30)}.`;
    expect(parts(`${first} ${second}`)).to.deep.equal([first, second]);
  });

  it("cuts at the last space before the limit when no sentence or line ends near it", () => {
    const text = `${words(150)} ${words(30)}`; // 749 + 1 + 149 characters
    expect(parts(text)).to.deep.equal([words(160), words(20)]);
  });

  it("cuts a word longer than the limit at the limit, never inside a character", () => {
    const text = `${"x".repeat(MAX_PASSAGE_CHARS - 1)}😀${"y".repeat(10)}`;
    expect(parts(text)).to.deep.equal(["x".repeat(MAX_PASSAGE_CHARS - 1), `😀${"y".repeat(10)}`]);
  });

  it(`cuts a long section in parts of at most ${MAX_PASSAGE_CHARS} characters, each with the heading`, () => {
    const text = Array.from({ length: 40 }, (_, index) => `Line ${index}: ${words(12, 6)}.`).join(
      "\n",
    );
    const passages = toPassages(page([section(text, ["Prices", "Implants"], "implants")]));
    expect(passages.length).to.be.greaterThan(3);
    expect(passages.map((passage) => passage.text).join("\n")).to.equal(text);
    for (const passage of passages) {
      expect(passage.text.length).to.be.at.most(MAX_PASSAGE_CHARS);
      expect([passage.heading, passage.sectionId]).to.deep.equal(["Prices > Implants", "implants"]);
    }
    expect(passages.map((passage) => passage.id)).to.deep.equal(
      passages.map((_, index) => `${URL}#${index}`),
    );
  });
});
