/** The ids scroll_to takes on a page: its headings', then its sections' that are not headings'. */
import { expect } from "chai";
import { outlineIds } from "./outline-ids.ts";

describe("outline ids", () => {
  it("adds the ids of the sections' enclosing elements after the headings'", () => {
    const passages = [{ sectionId: "opening-hours" }, { sectionId: "weekly-hours" }];
    expect(outlineIds(["opening-hours", "holidays"], passages)).to.deep.equal([
      "opening-hours",
      "holidays",
      "weekly-hours",
    ]);
  });

  it("names each id once, a section cut in several passages included", () => {
    const passages = [{ sectionId: "faq" }, { sectionId: "faq" }];
    expect(outlineIds([], passages)).to.deep.equal(["faq"]);
  });

  it("leaves out the sections without an id", () => {
    expect(outlineIds(["top"], [{ sectionId: null }])).to.deep.equal(["top"]);
  });
});
