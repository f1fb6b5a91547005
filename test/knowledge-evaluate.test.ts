/**
 * The retrieval evaluation of the knowledge benchmark (bench/knowledge/evaluate.ts): recall@3 and
 * MRR by page and by section, on tiny made-up answers.
 */
import { expect } from "chai";
import { evaluate, type EvaluationQuestion, type Found } from "../bench/knowledge/evaluate.ts";

const ORIGIN = "https://shop.example";

/** A search answering from a table of question → hits. */
function searchFrom(answers: Record<string, Found[]>) {
  return (question: string) => answers[question] ?? [];
}

const hit = (path: string, section_id: string | null, score?: number): Found => ({
  url: `${ORIGIN}${path}`,
  section_id,
  score,
});

const ask = (question: string, path: string | null, section_id: string | null = null) =>
  ({ question, path, section_id }) satisfies EvaluationQuestion;

describe("knowledge retrieval evaluation", () => {
  it("scores a question answered first by its page and section as 1 everywhere", () => {
    const search = searchFrom({ q: [hit("/hours", "sunday")] });
    const result = evaluate(search, [ask("q", "/hours", "sunday")], ORIGIN);
    expect(result.page).to.deep.equal({ recall3: 1, mrr: 1 });
    expect(result.section).to.deep.equal({ recall3: 1, mrr: 1 });
    expect(result.questions).to.equal(1);
    expect(result.misses).to.deep.equal([]);
  });

  it("gives MRR 1/rank of the first hit on the right page", () => {
    const search = searchFrom({ q: [hit("/a", null), hit("/b", null), hit("/hours", "x")] });
    expect(evaluate(search, [ask("q", "/hours", "sunday")], ORIGIN).page.mrr).to.equal(1 / 3);
  });

  it("counts a page found at rank 3 in recall@3 and one at rank 4 not", () => {
    const at = (rank: number) => [
      ...Array.from({ length: rank - 1 }, (_, k) => hit(`/other${k}`, null)),
      hit("/hours", null),
    ];
    const search = searchFrom({ third: at(3), fourth: at(4) });
    const questions = [ask("third", "/hours"), ask("fourth", "/hours")];
    const result = evaluate(search, questions, ORIGIN);
    expect(result.page.recall3).to.equal(0.5);
    expect(result.page.mrr).to.equal((1 / 3 + 1 / 4) / 2);
  });

  it("scores the section apart from the page: right page, wrong section", () => {
    const search = searchFrom({ q: [hit("/hours", "holidays"), hit("/hours", "sunday")] });
    const result = evaluate(search, [ask("q", "/hours", "sunday")], ORIGIN);
    expect(result.page).to.deep.equal({ recall3: 1, mrr: 1 });
    expect(result.section).to.deep.equal({ recall3: 1, mrr: 0.5 });
  });

  it("matches a section of null (text before the first heading) only to a hit without one", () => {
    const search = searchFrom({ q: [hit("/", "intro"), hit("/", null)] });
    expect(evaluate(search, [ask("q", "/", null)], ORIGIN).section.mrr).to.equal(0.5);
  });

  it("matches the page however its URL is written: trailing slash, fragment", () => {
    const search = searchFrom({ q: [{ url: `${ORIGIN}/hours/#top`, section_id: null }] });
    expect(evaluate(search, [ask("q", "/hours")], ORIGIN).page.mrr).to.equal(1);
  });

  it("scores a question nothing was found for as 0", () => {
    const result = evaluate(searchFrom({}), [ask("q", "/hours", "sunday")], ORIGIN);
    expect(result.page).to.deep.equal({ recall3: 0, mrr: 0 });
  });

  it("lists the questions whose section is not in the top 3, with what was found", () => {
    const search = searchFrom({
      good: [hit("/hours", "sunday")],
      bad: [hit("/menu", "pizza"), hit("/hours", "holidays")],
    });
    const questions = [ask("good", "/hours", "sunday"), ask("bad", "/hours", "sunday")];
    expect(evaluate(search, questions, ORIGIN).misses).to.deep.equal([
      {
        question: "bad",
        expected: `${ORIGIN}/hours#sunday`,
        found: [`${ORIGIN}/menu#pizza`, `${ORIGIN}/hours#holidays`],
        pageRank: 2,
        sectionRank: null,
      },
    ]);
  });

  it("keeps questions the site cannot answer out of the figures, reporting their top hit", () => {
    const search = searchFrom({
      answerable: [hit("/hours", "sunday")],
      parking: [hit("/menu", "pizza", 1.25)],
      weather: [],
    });
    const questions = [
      ask("answerable", "/hours", "sunday"),
      ask("parking", null),
      ask("weather", null),
    ];
    const result = evaluate(search, questions, ORIGIN);
    expect(result.questions).to.equal(1);
    expect(result.page).to.deep.equal({ recall3: 1, mrr: 1 });
    expect(result.unanswerable).to.deep.equal([
      { question: "parking", top: `${ORIGIN}/menu#pizza`, topScore: 1.25 },
      { question: "weather", top: null, topScore: null },
    ]);
  });

  it("passes each question's language to the search", () => {
    const languages: (string | undefined)[] = [];
    const search = (_question: string, language?: string) => {
      languages.push(language);
      return [];
    };
    evaluate(search, [{ ...ask("q", "/"), language: "de" }, ask("r", "/")], ORIGIN);
    expect(languages).to.deep.equal(["de", undefined]);
  });

  it("answers zeros, not NaN, without answerable questions", () => {
    const result = evaluate(searchFrom({}), [ask("q", null)], ORIGIN);
    expect(result.page).to.deep.equal({ recall3: 0, mrr: 0 });
    expect(result.questions).to.equal(0);
  });
});
