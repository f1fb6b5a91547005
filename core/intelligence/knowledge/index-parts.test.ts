/**
 * What the index counts of a passage's heading: its path without the page's h1 when the title
 * already says it, so a page's topic weighs once per passage, not twice.
 */
import { expect } from "chai";
import { indexedHeading } from "./index-parts.ts";
import { languageTerms } from "./language-terms.ts";

const english = languageTerms("en");
const of = (title: string, heading: string) => indexedHeading({ title, heading }, english);

describe("indexed heading", () => {
  it("drops the h1 when the title holds all its words", () => {
    expect(of("Prices – Lindenhof Dental", "Prices > Price list")).to.equal("Price list");
  });

  it("drops it whatever the words' case and form", () => {
    expect(of("Our Opening Hours | Shop", "Opening hour > Holidays")).to.equal("Holidays");
  });

  it("keeps an h1 with a word the title does not have", () => {
    expect(of("Smart Parts", "Art > Prints")).to.equal("Art > Prints");
  });

  it("keeps the rest of the path in order", () => {
    expect(of("FAQ – Shop", "FAQ > Delivery > How long?")).to.equal("Delivery > How long?");
  });

  it("leaves nothing of a heading that is the h1 alone", () => {
    expect(of("Prices – Lindenhof Dental", "Prices")).to.equal("");
  });

  it("keeps an h1 without words of its own (nothing to count twice)", () => {
    expect(of("Shop", "– > Delivery")).to.equal("– > Delivery");
  });

  it("leaves an empty heading empty", () => {
    expect(of("Shop", "")).to.equal("");
  });
});
