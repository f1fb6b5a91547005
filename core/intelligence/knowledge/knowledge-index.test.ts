/**
 * A site's keyword index over its passages: what a question finds, in which order, and that the
 * stored string loads anywhere into an index that answers the same.
 */
import { expect } from "chai";
import MiniSearch from "minisearch";
import { indexedHeading } from "./index-parts.ts";
import {
  FIELD_BOOSTS,
  KNOWLEDGE_INDEX_FORMAT,
  KnowledgeIndex,
  KnowledgeIndexFormatError,
  MAX_QUERY_TERMS,
  MAX_SEARCH_LIMIT,
} from "./knowledge-index.ts";
import type { Passage } from "./knowledge-types.ts";
import { languageTerms } from "./language-terms.ts";

const ORIGIN = "https://trattoria.example";

let counter = 0;
/** A passage of a page of its own unless `fields` says otherwise. */
function passage(fields: Partial<Passage> & { text: string }): Passage {
  const n = counter++;
  const url = fields.url ?? `${ORIGIN}/p${n}`;
  return {
    id: `${url}#0`,
    url,
    title: "Trattoria",
    heading: "About",
    sectionId: null,
    ...fields,
  };
}

const filler = [
  passage({ text: "Our kitchen cooks with flour from a local mill and tomatoes from Sicily." }),
  passage({ text: "The garden terrace seats forty guests under an old fig tree in summer." }),
  passage({ text: "Gift vouchers can be bought at the counter for any amount." }),
];

const urls = (hits: { url: string }[]) => hits.map((hit) => hit.url);

function roundTrip(index: KnowledgeIndex): KnowledgeIndex {
  return KnowledgeIndex.load(index.serialize());
}

/** A small restaurant site, for comparing rankings. */
const site: Passage[] = [
  [
    "Visit us",
    "Visit us > Opening hours",
    "We are open Tuesday to Sunday from noon; closed on Mondays.",
  ],
  ["Visit us", "Visit us > Getting here", "Parking behind the building; the tram stops opposite."],
  [
    "Visit us",
    "Visit us > Accessibility",
    "The dining room and the toilets are wheelchair accessible.",
  ],
  ["Menu", "Menu > Starters", "Bruschetta, burrata with tomatoes, and a soup of the day."],
  ["Menu", "Menu > Pizza", "Wood-fired pizza from our oven, gluten-free bases on request."],
  ["Menu", "Menu > Desserts", "Tiramisu, panna cotta and gelato made in our kitchen."],
  ["Menu", "Menu > Allergens", "Ask us about allergens: every dish lists gluten, nuts and dairy."],
  [
    "Bookings",
    "Bookings > Tables",
    "Book a table online or by phone; groups of eight or more call us.",
  ],
  ["Bookings", "Bookings > Cancellations", "Cancel a booking up to 24h before without a fee."],
  ["Bookings", "Bookings > Private dining", "The cellar room seats twenty for private parties."],
  [
    "Delivery",
    "Delivery > Areas",
    "We deliver within five kilometres; delivery takes about forty minutes.",
  ],
  ["Delivery", "Delivery > Fees", "Delivery is free for orders over 30 euros, otherwise 3 euros."],
  [
    "Gift vouchers",
    "Gift vouchers",
    "Vouchers for any amount, valid for two years, sent by email.",
  ],
  ["Jobs", "Jobs > Kitchen", "We are hiring a pizza chef and a kitchen porter."],
].map(([title, heading, text], n) => ({
  id: `${ORIGIN}/s${n}#0`,
  url: `${ORIGIN}/s${n}`,
  title: title!,
  heading: heading!,
  sectionId: null,
  text: text!,
}));

/** MiniSearch itself over `passages`, with the index's fields, boosts, terms and options. */
function miniSearchOf(passages: Passage[], language: string) {
  const terms = languageTerms(language);
  const mini = new MiniSearch<Passage>({
    fields: ["title", "heading", "text"],
    storeFields: ["url"],
    extractField: (passage, field) =>
      field === "heading" ? indexedHeading(passage, terms) : passage[field as keyof Passage],
    tokenize: terms.tokenize,
    processTerm: terms.processTerm,
    searchOptions: {
      boost: { title: FIELD_BOOSTS[0]!, heading: FIELD_BOOSTS[1]!, text: FIELD_BOOSTS[2]! },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
      combineWith: "OR",
    },
  });
  mini.addAll(passages);
  return mini;
}

describe("knowledge index", () => {
  it("answers a hit with the passage's url, title, heading, section id, text and a score", () => {
    const hours = passage({
      url: `${ORIGIN}/visit`,
      title: "Visit us",
      heading: "Visit us > Opening hours",
      sectionId: "hours",
      text: "We are open Tuesday to Sunday from 12:00 to 22:00.",
    });
    const [hit, ...rest] = KnowledgeIndex.build([hours, ...filler], "en").search(
      "opening times",
      5,
    );
    expect(rest).to.deep.equal([]);
    expect(hit).to.deep.include({
      url: `${ORIGIN}/visit`,
      title: "Visit us",
      heading: "Visit us > Opening hours",
      section_id: "hours",
      text: "We are open Tuesday to Sunday from 12:00 to 22:00.",
    });
    expect(hit!.score).to.be.a("number").above(0);
  });

  it("finds a word in another form of the site's language (stemmed: opens, opening)", () => {
    const hours = passage({ text: "The restaurant opens at noon every day." });
    const hits = KnowledgeIndex.build([hours, ...filler], "en").search("opening", 5);
    expect(urls(hits)).to.deep.equal([hours.url]);
  });

  it("finds a word written without its accents (folded: café, cafe)", () => {
    const cafe = passage({ text: "Le café est servi jusqu'à minuit." });
    const hits = KnowledgeIndex.build([cafe, ...filler], "fr").search("cafe", 5);
    expect(urls(hits)).to.deep.equal([cafe.url]);
  });

  it("finds a German word with its umlaut, without it, and spelt with oe", () => {
    const hours = passage({ text: "Unsere Öffnungszeiten: Montag bis Freitag 9 bis 18 Uhr." });
    const index = KnowledgeIndex.build([hours, ...filler], "de");
    expect(urls(index.search("Öffnungszeiten", 5)), "ö").to.deep.equal([hours.url]);
    expect(urls(index.search("offnungszeiten", 5)), "o").to.deep.equal([hours.url]);
    expect(urls(index.search("oeffnungszeiten", 5)), "oe").to.deep.equal([hours.url]);
  });

  it("ignores the stop words of a question", () => {
    const parking = passage({ text: "Free parking behind the building." });
    const index = KnowledgeIndex.build([parking, ...filler], "en");
    expect(index.search("is there any parking?", 5)).to.deep.equal(index.search("parking", 5));
  });

  it("answers nothing for a question of stop words only", () => {
    const index = KnowledgeIndex.build(filler, "en");
    expect(index.search("what is it that you do?", 5)).to.deep.equal([]);
  });

  it("answers nothing for an empty question", () => {
    expect(KnowledgeIndex.build(filler, "en").search("  ", 5)).to.deep.equal([]);
  });

  it("answers nothing from an empty index", () => {
    const index = KnowledgeIndex.build([], "en");
    expect(index.size).to.equal(0);
    expect(index.search("parking", 5)).to.deep.equal([]);
  });

  it("answers nothing from an empty index loaded from its string", () => {
    expect(roundTrip(KnowledgeIndex.build([], undefined)).search("parking", 5)).to.deep.equal([]);
  });

  it("counts its passages", () => {
    expect(KnowledgeIndex.build(filler, "en").size).to.equal(filler.length);
  });

  it("ranks a word in a heading above the same word in body text", () => {
    const inBody = passage({ heading: "Getting here", text: "Parking is free for guests." });
    const inHeading = passage({ heading: "Parking", text: "It is free for all our guests." });
    const hits = KnowledgeIndex.build([inBody, inHeading, ...filler], "en").search("parking", 5);
    expect(urls(hits)).to.deep.equal([inHeading.url, inBody.url]);
  });

  it("ranks a word in a title above the same word in body text", () => {
    const inBody = passage({ title: "Getting here", text: "Parking is free for guests." });
    const inTitle = passage({ title: "Parking", text: "It is free for all our guests." });
    const hits = KnowledgeIndex.build([inBody, inTitle, ...filler], "en").search("parking", 5);
    expect(urls(hits)).to.deep.equal([inTitle.url, inBody.url]);
  });

  it("finds a word by its beginning (prefix search, four letters or more)", () => {
    const access = passage({ text: "The dining room is wheelchair accessible." });
    const hits = KnowledgeIndex.build([access, ...filler], "en").search("wheelch", 5);
    expect(urls(hits)).to.deep.equal([access.url]);
  });

  it("does not search by the beginning of a word shorter than four letters", () => {
    const access = passage({ text: "The dining room is wheelchair accessible." });
    expect(KnowledgeIndex.build([access, ...filler], "en").search("whe", 5)).to.deep.equal([]);
  });

  it("finds a word with a typo (fuzzy search)", () => {
    const access = passage({ text: "The dining room is wheelchair accessible." });
    const hits = KnowledgeIndex.build([access, ...filler], "en").search("wheelchar", 5);
    expect(urls(hits)).to.deep.equal([access.url]);
  });

  it("ranks the exact word above a typo's neighbour", () => {
    const exact = passage({ text: "We bake bread every morning." });
    const near = passage({ text: "We brake for nothing but breed." });
    const hits = KnowledgeIndex.build([near, exact, ...filler], "en").search("bread", 5);
    expect(urls(hits)[0]).to.equal(exact.url);
  });

  it("finds passages with any of the question's words, those with more first", () => {
    const both = passage({ text: "Dogs are welcome on the terrace." });
    const one = passage({ text: "Dogs must stay on a lead." });
    const hits = KnowledgeIndex.build([one, both], "en").search("dogs terrace", 5);
    expect(urls(hits)).to.deep.equal([both.url, one.url]);
  });

  it(`answers at most ${MAX_SEARCH_LIMIT} passages however many are asked for`, () => {
    const many = Array.from({ length: 9 }, (_, k) => passage({ text: `Pizza number ${k}.` }));
    expect(KnowledgeIndex.build(many, "en").search("pizza", 50)).to.have.length(MAX_SEARCH_LIMIT);
  });

  it("answers as many passages as asked for below the cap", () => {
    const many = Array.from({ length: 9 }, (_, k) => passage({ text: `Pizza number ${k}.` }));
    expect(KnowledgeIndex.build(many, "en").search("pizza", 2)).to.have.length(2);
  });

  it("ranks more passages than a search answers, with their ids, for fusion", () => {
    const many = Array.from({ length: 9 }, (_, k) =>
      passage({ text: `Pizza number ${k}.${" Pizza.".repeat(k)}` }),
    );
    const index = KnowledgeIndex.build(many, "en");
    const ranked = index.rank("pizza", 8);
    expect(ranked.map((r) => r.passage.id)).to.deep.equal(
      many
        .slice(1)
        .reverse()
        .map((p) => p.id),
    );
    expect(ranked.slice(0, MAX_SEARCH_LIMIT).map((r) => [r.passage.url, r.score])).to.deep.equal(
      index.search("pizza", MAX_SEARCH_LIMIT).map((hit) => [hit.url, hit.score]),
    );
  });

  it("finds a passage by its id, built or loaded", () => {
    const hours = passage({ sectionId: "hours", text: "Open from noon." });
    const index = KnowledgeIndex.build([hours, ...filler], "en");
    expect(index.passage(hours.id)).to.deep.equal(hours);
    expect(roundTrip(index).passage(hours.id)).to.deep.equal(hours);
  });

  it("finds no passage by an id it does not hold", () => {
    expect(KnowledgeIndex.build(filler, "en").passage(`${ORIGIN}/nowhere#0`)).to.equal(undefined);
  });

  it("answers one passage for a limit below one", () => {
    const many = Array.from({ length: 9 }, (_, k) => passage({ text: `Pizza number ${k}.` }));
    expect(KnowledgeIndex.build(many, "en").search("pizza", 0)).to.have.length(1);
  });

  it("breaks ties of equal scores by passage id, whatever the order passages came in", () => {
    const same = ["c", "a", "b"].map((name) =>
      passage({ url: `${ORIGIN}/${name}`, text: "Takeaway orders by phone." }),
    );
    const hits = KnowledgeIndex.build(same, "en").search("takeaway", 5);
    expect(urls(hits)).to.deep.equal([`${ORIGIN}/a`, `${ORIGIN}/b`, `${ORIGIN}/c`]);
  });

  it("rounds scores to four decimals", () => {
    const hits = KnowledgeIndex.build([passage({ text: "Vegan dishes daily." }), ...filler], "en");
    const [hit] = hits.search("vegan", 5);
    expect(hit!.score).to.equal(Math.round(hit!.score * 1e4) / 1e4);
  });

  it(`reads at most ${MAX_QUERY_TERMS} terms of a question`, () => {
    const parking = passage({ text: "Free parking behind the building." });
    const index = KnowledgeIndex.build([parking, ...filler], "en");
    const words = Array.from({ length: MAX_QUERY_TERMS }, (_, k) => `zz${k}`).join(" ");
    expect(index.search(`${words} parking`, 5)).to.deep.equal([]);
    expect(urls(index.search(`parking ${words}`, 5))).to.deep.equal([parking.url]);
  });

  for (const question of [
    "are you open on sundays?",
    "parking",
    "wheelchair access",
    "gluten free pizza",
    "how long does delivery take",
    "delivry fee",
    "book a table for a group",
    "vouch",
    "kitchen",
    "tiramisu dessert menu",
  ]) {
    it(`scores as MiniSearch's BM25+ does: "${question}"`, () => {
      const mini = miniSearchOf(site, "en").search(question);
      const expected = mini
        .map((result) => ({
          url: result.url as string,
          score: Math.round(result.score * 1e4) / 1e4,
        }))
        .sort((a, b) => b.score - a.score || (a.url < b.url ? -1 : 1))
        .slice(0, 5);
      const hits = KnowledgeIndex.build(site, "en").search(question, 5);
      expect(expected, "MiniSearch finds something").to.not.deep.equal([]);
      expect(hits.map(({ url, score }) => ({ url, score }))).to.deep.equal(expected);
    });
  }

  it("writes its format version into its string", () => {
    const stored = JSON.parse(KnowledgeIndex.build(filler, "en").serialize()) as { format: number };
    expect(stored.format).to.equal(KNOWLEDGE_INDEX_FORMAT);
  });

  it("loads from its string into an index that answers the same, scores and all", () => {
    const passages = [
      passage({ heading: "Parking", text: "Free parking behind the building." }),
      passage({ text: "The dining room is wheelchair accessible." }),
      passage({
        title: "Menu",
        text: "Vegan and gluten-free dishes every day; bread baked daily.",
      }),
      passage({ text: "Gift vouchers for any amount, and for a breakfast for two." }),
      ...filler,
    ];
    const built = KnowledgeIndex.build(passages, "en");
    const loaded = roundTrip(built);
    expect(loaded.size).to.equal(built.size);
    for (const question of ["parking", "wheelch", "wheelchar", "bread vegan", "gift for two"]) {
      expect(loaded.search(question, 5), question).to.deep.equal(built.search(question, 5));
    }
  });

  it("keeps the site's language in its string: a loaded index stems questions as built", () => {
    const delivery = passage({ text: "Die Lieferung dauert zwei Tage." });
    const loaded = roundTrip(KnowledgeIndex.build([delivery, ...filler], "de"));
    expect(urls(loaded.search("Lieferungen", 5))).to.deep.equal([delivery.url]);
  });

  it("does not stem without a language", () => {
    const hours = passage({ text: "The restaurant opens at noon every day." });
    const index = KnowledgeIndex.build([hours, ...filler], undefined);
    expect(index.search("opening", 5)).to.deep.equal([]);
  });

  it("refuses to load a string of another format version", () => {
    const stored = JSON.parse(KnowledgeIndex.build(filler, "en").serialize()) as object;
    const other = JSON.stringify({ ...stored, format: KNOWLEDGE_INDEX_FORMAT + 1 });
    expect(() => KnowledgeIndex.load(other)).to.throw(KnowledgeIndexFormatError, /format/);
  });

  it("refuses to load a string that is not JSON", () => {
    expect(() => KnowledgeIndex.load("{not json")).to.throw(KnowledgeIndexFormatError);
  });

  it("refuses to load JSON that is not an index", () => {
    expect(() => KnowledgeIndex.load('{"hello":"world"}')).to.throw(KnowledgeIndexFormatError);
  });

  it("refuses to load an index whose parts do not fit together", () => {
    const stored = JSON.parse(KnowledgeIndex.build(filler, "en").serialize()) as {
      passages: unknown[];
    };
    const cut = JSON.stringify({ ...stored, passages: stored.passages.slice(1) });
    expect(() => KnowledgeIndex.load(cut)).to.throw(KnowledgeIndexFormatError);
  });
});
