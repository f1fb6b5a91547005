/**
 * The retrieval evaluation on the knowledge fixture site (bench/knowledge/retrieval.ts) keeps to
 * the target with keyword search alone: the answering page among the first 3 hits for
 * at least 85% of the answerable questions.
 */
import { expect } from "chai";
import { knowledgeRetrieval } from "../bench/knowledge/retrieval.ts";

describe("knowledge retrieval on the fixture site", () => {
  it("finds the answering page among the first 3 hits for at least 85% of the questions", () => {
    const run = knowledgeRetrieval();
    expect(run.questions, "answerable questions").to.be.at.least(40);
    expect(run.page.recall3).to.be.at.least(0.85);
  });
});
