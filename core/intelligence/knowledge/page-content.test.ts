import { expect } from "chai";
import { extractContent } from "./page-content.ts";

const URL = "https://dental.example/hours";

const sections = (body: string) =>
  extractContent(`<html><body>${body}</body></html>`, URL).sections;

/** The sections' texts, for cases about the text alone. */
const texts = (body: string) => sections(body).map((section) => section.text);

describe("extractContent: the page", () => {
  it("gives the URL it was handed", () => {
    expect(extractContent("<p>x</p>", URL).url).to.equal(URL);
  });

  it("reads <title> trimmed, its whitespace collapsed", () => {
    const html = "<html><head><title>\n  Opening   hours\n</title></head><body>x</body></html>";
    expect(extractContent(html, URL).title).to.equal("Opening hours");
  });

  it("has no title without <title>, or with an empty one, and ignores an SVG's <title>", () => {
    expect(extractContent("<p>x</p>", URL).title).to.equal(null);
    expect(extractContent("<title> </title><p>x</p>", URL).title).to.equal(null);
    expect(extractContent("<svg><title>Icon</title></svg><p>x</p>", URL).title).to.equal(null);
  });

  it("reads the language as <html lang>'s primary subtag in lower case", () => {
    expect(extractContent('<html lang="de-CH"><p>x</p></html>', URL).language).to.equal("de");
    expect(extractContent('<html lang="EN"><p>x</p></html>', URL).language).to.equal("en");
  });

  it("has no language without <html lang> or with one that names none", () => {
    expect(extractContent("<html><p>x</p></html>", URL).language).to.equal(null);
    expect(extractContent('<html lang=""><p>x</p></html>', URL).language).to.equal(null);
    expect(extractContent('<html lang="x-private"><p>x</p></html>', URL).language).to.equal(null);
  });

  it("has no sections when the page has no main text", () => {
    expect(sections("<nav><a href='/'>Home</a></nav><script>x()</script>")).to.deep.equal([]);
  });
});

describe("extractContent: what is kept of a page", () => {
  it("takes <main> only when the page has one", () => {
    expect(texts("<p>Before</p><main><p>Inside</p></main><p>After</p>")).to.deep.equal(["Inside"]);
  });

  it('takes an element with role="main" as <main>', () => {
    expect(texts('<p>Before</p><div role="main"><p>Inside</p></div>')).to.deep.equal(["Inside"]);
  });

  it("takes the body without its boilerplate when there is no <main>", () => {
    expect(
      texts("<header><p>Logo</p></header><div><p>Content</p></div><footer><p>Address</p></footer>"),
    ).to.deep.equal(["Content"]);
  });

  it("drops <nav>, also inside the main content", () => {
    expect(texts("<main><nav><a href='/'>Home</a></nav><p>Text</p></main>")).to.deep.equal([
      "Text",
    ]);
  });

  it("keeps a <header> or <footer> that belongs to an article or a section", () => {
    expect(
      texts(
        "<article><header><p>By Dr Weber</p></header><p>Text</p><footer><p>Updated May</p></footer></article>",
      ),
    ).to.deep.equal(["By Dr Weber\nText\nUpdated May"]);
  });

  it("drops scripts, styles, noscript, templates, SVG, iframes and objects", () => {
    expect(
      texts(
        "<p>Text</p><script>track()</script><style>p{}</style><noscript>Enable JS</noscript>" +
          "<template><p>Row</p></template><svg><text>Logo</text></svg>" +
          "<iframe src='/map'>Map</iframe><object>Plugin</object>",
      ),
    ).to.deep.equal(["Text"]);
  });

  it("drops form controls and the labels of a form, and keeps the form's other text", () => {
    expect(
      texts(
        "<form><p>Write to us</p><label>Name <input name='n'></label><select><option>Mr</option></select>" +
          "<textarea>Message</textarea><button>Send</button></form>",
      ),
    ).to.deep.equal(["Write to us"]);
  });

  it("keeps a label outside a form (a CSS accordion's question)", () => {
    expect(
      texts("<input type='checkbox' id='q1'><label for='q1'>Can I park?</label><p>Yes.</p>"),
    ).to.deep.equal(["Can I park?\nYes."]);
  });

  it("drops a skip link", () => {
    expect(
      texts(
        "<a class='skip-link screen-reader-text' href='#content'>Skip to content</a><p id='content'>Text</p>",
      ),
    ).to.deep.equal(["Text"]);
  });

  it("drops a cookie banner named so by its class, id or aria-label", () => {
    expect(
      texts(
        "<p>Text</p><div class='site cookie-banner'>We use cookies</div>" +
          "<div id='CybotCookiebotDialog'>Allow all</div><section aria-label='Cookie consent'>Accept</section>" +
          "<div class='gdpr-notice'>Privacy</div><div id='consent-manager'>Manage</div>",
      ),
    ).to.deep.equal(["Text"]);
  });

  it("drops a dialog that speaks of cookies", () => {
    expect(
      texts("<p>Text</p><div role='dialog'><p>This site uses cookies.</p><a>OK</a></div>"),
    ).to.deep.equal(["Text"]);
  });

  it("keeps content merely named after cookies or consent (a bakery's cookies, consent forms)", () => {
    expect(
      texts(
        "<section id='cookies' class='cookies'><p>Oat cookies</p></section>" +
          "<section id='consent'><p>Sign the consent form</p></section>",
      ),
    ).to.deep.equal(["Oat cookies\nSign the consent form"]);
  });

  it('drops elements [hidden], aria-hidden="true" or styled display: none', () => {
    expect(
      texts(
        "<p>Text</p><p hidden>Old price</p><span aria-hidden='true'>★</span>" +
          "<p style='color: red; display:none'>Draft</p><p aria-hidden='false'>Shown</p>",
      ),
    ).to.deep.equal(["Text\nShown"]);
  });

  it("keeps content hidden until found (collapsed, opened by the browser's search)", () => {
    expect(texts("<p>Text</p><div hidden='until-found'><p>Answer</p></div>")).to.deep.equal([
      "Text\nAnswer",
    ]);
  });

  it("drops a closed <dialog> and keeps an open one", () => {
    expect(
      texts("<p>Text</p><dialog><p>Newsletter?</p></dialog><dialog open><p>Notice</p></dialog>"),
    ).to.deep.equal(["Text\nNotice"]);
  });

  it("drops the landmarks navigation, banner, contentinfo and search given by role", () => {
    expect(
      texts(
        "<div role='banner'>Logo</div><div role='navigation'>Menu</div><p>Text</p>" +
          "<div role='search'>Search</div><div role='contentinfo'>Imprint</div>",
      ),
    ).to.deep.equal(["Text"]);
  });

  it("drops an aside that is navigation (mostly links) and keeps one that says something", () => {
    expect(
      texts(
        "<p>Text</p><aside><ul><li><a href='/a'>Implants</a></li><li><a href='/b'>Cleaning</a></li></ul></aside>" +
          "<aside><p>In pain? Call <a href='tel:1'>0761 123</a> at once.</p></aside>",
      ),
    ).to.deep.equal(["Text\nIn pain? Call 0761 123 at once."]);
  });

  it("drops an aside holding a navigation landmark", () => {
    expect(
      texts("<p>Text</p><aside><p>On this page and many others too</p><nav>Links</nav></aside>"),
    ).to.deep.equal(["Text"]);
  });

  it("reads a page nested 100,000 deep, keeping its text", () => {
    const n = 100_000;
    const html = `<main>${"<div>".repeat(n)}<p>Deep</p>${"</div>".repeat(n)}<p>After</p></main>`;
    expect(extractContent(html, URL).sections).to.deep.equal([
      { headings: [], sectionId: null, text: "Deep\nAfter" },
    ]);
  });
});

describe("extractContent: sections", () => {
  it("splits at headings, each section with its heading path, outermost first", () => {
    expect(
      sections(
        "<h1>Hours</h1><p>Open daily.</p><h2>Holidays</h2><p>Closed.</p><h3>Easter</h3><p>Shut.</p>",
      ),
    ).to.deep.equal([
      { headings: ["Hours"], sectionId: null, text: "Open daily." },
      { headings: ["Hours", "Holidays"], sectionId: null, text: "Closed." },
      { headings: ["Hours", "Holidays", "Easter"], sectionId: null, text: "Shut." },
    ]);
  });

  it("pops the path to a heading's level when a heading of the same or a higher level comes", () => {
    expect(
      sections(
        "<h1>A</h1><h2>B</h2><h3>C</h3><p>c</p><h2>D</h2><p>d</p><h3>E</h3><p>e</p><h1>F</h1><p>f</p>",
      ).map((section) => section.headings),
    ).to.deep.equal([["A", "B", "C"], ["A", "D"], ["A", "D", "E"], ["F"]]);
  });

  it("keeps a skipped level out of the path", () => {
    expect(
      sections("<h1>A</h1><h3>C</h3><p>c</p><h2>B</h2><p>b</p>").map((section) => section.headings),
    ).to.deep.equal([
      ["A", "C"],
      ["A", "B"],
    ]);
  });

  it("gives the text before the first heading an empty path", () => {
    expect(sections("<p>Welcome.</p><h2>More</h2><p>Text</p>")[0]).to.deep.equal({
      headings: [],
      sectionId: null,
      text: "Welcome.",
    });
  });

  it("drops a section without text, such as a heading followed at once by another", () => {
    expect(sections("<h1>Hours</h1><h2 id='week'>Week</h2><p>9–5</p><h2>Later</h2>")).to.deep.equal(
      [{ headings: ["Hours", "Week"], sectionId: "week", text: "9–5" }],
    );
  });

  it("reads a heading's text with its inline elements and no dropped ones", () => {
    expect(
      sections("<h2>Opening <em>hours</em><span aria-hidden='true'>#</span></h2><p>x</p>")[0]!
        .headings,
    ).to.deep.equal(["Opening hours"]);
  });

  it("takes no heading without text for a section's start", () => {
    expect(sections("<h2>Hours</h2><p>a</p><h3><img src='x'></h3><p>b</p>")).to.deep.equal([
      { headings: ["Hours"], sectionId: null, text: "a\nb" },
    ]);
  });

  it("splits at headings nested in other elements", () => {
    expect(
      sections(
        "<div><section><h2>A</h2><p>a</p></section><section><h2>B</h2><p>b</p></section></div>",
      ).map((section) => section.text),
    ).to.deep.equal(["a", "b"]);
  });

  it("takes the heading's own id for the section's", () => {
    expect(
      sections("<section id='outer'><h2 id='hours'>Hours</h2><p>x</p></section>")[0]!.sectionId,
    ).to.equal("hours");
  });

  it("takes the id of an element inside the heading when it has none", () => {
    expect(
      sections("<h2><a id='hours' href='#hours'>Hours</a></h2><p>x</p>")[0]!.sectionId,
    ).to.equal("hours");
  });

  it("takes the nearest enclosing element's id when the heading has none", () => {
    expect(
      sections(
        "<div id='page'><section id='hours'><div><h2>Hours</h2></div><p>x</p></section></div>",
      )[0]!.sectionId,
    ).to.equal("hours");
  });

  it("has no section id when neither the heading nor an element around it has one", () => {
    expect(sections("<section><h2>Hours</h2><p>x</p></section>")[0]!.sectionId).to.equal(null);
  });

  it("keeps a heading inside a table cell as the cell's text", () => {
    expect(
      sections("<h2>Prices</h2><table><tr><td><h4>Cleaning</h4></td><td>€90</td></tr></table>"),
    ).to.deep.equal([{ headings: ["Prices"], sectionId: null, text: "Cleaning | €90" }]);
  });
});

describe("extractContent: text", () => {
  it("puts paragraphs and other blocks on lines of their own", () => {
    expect(
      texts("<p>One.</p><p>Two.</p><div>Three</div>Four<blockquote>Five</blockquote>"),
    ).to.deep.equal(["One.\nTwo.\nThree\nFour\nFive"]);
  });

  it("collapses whitespace, no-break spaces among it, and decodes entities", () => {
    expect(texts("<p>\n  Mon&nbsp;–&nbsp;Fri \t 8&#58;00 &amp;\n  later  </p>")).to.deep.equal([
      "Mon – Fri 8:00 & later",
    ]);
  });

  it("joins inline elements as written: no space where none is, one where there is", () => {
    expect(texts("<p>Mon<b>day</b> and <i>Tues</i> day,<a href='#'> Wed</a>.</p>")).to.deep.equal([
      "Monday and Tues day, Wed.",
    ]);
  });

  it("writes each list item on a line of its own as `- text`", () => {
    expect(
      texts("<ul><li>AOK</li><li> TK <b>and</b> Barmer </li></ul><ol><li>First</li></ol>"),
    ).to.deep.equal(["- AOK\n- TK and Barmer\n- First"]);
  });

  it("indents a nested list's items by two spaces a level, and writes a block inside an item after its dash", () => {
    expect(
      texts(
        "<ul><li><p>Private</p><ul><li>Allianz<ol><li>Inner</li></ol></li><li>AXA</li></ul></li><li></li></ul><p>End</p>",
      ),
    ).to.deep.equal(["- Private\n  - Allianz\n    - Inner\n  - AXA\nEnd"]);
  });

  it("writes a table's rows one a line, their cells joined by ` | `, empty cells left out", () => {
    expect(
      texts(
        "<table><caption>Hours</caption><thead><tr><th></th><th>Morning</th><th>Afternoon</th></tr></thead>" +
          "<tbody><tr><th>Monday</th><td>8–12</td><td>14–18</td></tr><tr><td>Wednesday</td><td> </td><td>14–19</td></tr></tbody></table>",
      ),
    ).to.deep.equal(["Hours\nMorning | Afternoon\nMonday | 8–12 | 14–18\nWednesday | 14–19"]);
  });

  it("writes a cell's blocks and line breaks as spaces", () => {
    expect(
      texts(
        "<table><tr><td><p>Crown</p><p>ceramic</p></td><td>€600<br>per tooth</td></tr></table>",
      ),
    ).to.deep.equal(["Crown ceramic | €600 per tooth"]);
  });

  it("breaks the line at <br>", () => {
    expect(texts("<p>Lindenhofstraße 12<br>79100 Freiburg<br/><br>Germany</p>")).to.deep.equal([
      "Lindenhofstraße 12\n79100 Freiburg\nGermany",
    ]);
  });

  it("writes a definition list's terms and descriptions on lines of their own", () => {
    expect(
      texts("<dl><dt>Phone</dt><dd>0761 123</dd><dt>Email</dt><dd>hi@x.de</dd></dl>"),
    ).to.deep.equal(["Phone\n0761 123\nEmail\nhi@x.de"]);
  });

  it("keeps the lines of <pre>, each collapsed", () => {
    expect(texts("<pre>Mon   8-12\n\nTue 8-12\n</pre>")).to.deep.equal(["Mon 8-12\nTue 8-12"]);
  });
});
