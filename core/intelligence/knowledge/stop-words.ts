/**
 * Small stop-word lists: the articles, pronouns, prepositions, conjunctions, auxiliaries and
 * question words of a visitor's question ("are you open on Sundays?") that name nothing the
 * answer's passage would contain. Kept short on purpose: BM25's weighting already makes common
 * words cheap, and a word dropped here can never be found (so no "may", "us", "open", "long").
 * Written as a speaker spells them; compared folded (see language-terms.ts), so "où" and "ou"
 * are one entry.
 */
const lists: Record<string, string> = {
  en: `a an the and or but if of to in on at by for with from about into over under after before
    up down out off than then so as i me my we our you your he him his she her it its they them
    their this that these those is are was were be been being am do does did done have has had
    can could would should shall will there here what which who whom whose when where why how
    any some all each not no yes please`,
  de: `der die das den dem des ein eine einen einem einer eines und oder aber ich du er sie es wir
    ihr mich mir dich dir uns euch ihnen ihm ihn sein seine ihre mein meine dein deine unser
    unsere euer ist sind war waren bin bist hat haben habe hast hatte wird werden wurde würde
    kann können könnt muss müssen soll sollen darf will wollen mit von zu zum zur im in am an
    auf aus bei für über unter nach vor um bis durch gegen ohne als wie was wer wo wann warum
    welche welcher welches ob dass nicht kein keine noch auch nur so da dann doch denn ja nein
    man sich hier dort gibt mal bitte`,
  fr: `le la les un une des du de au aux et ou où mais donc car ni que qui quoi quel quelle quels
    quelles ce cet cette ces ça je tu il elle on nous vous ils elles me te se lui leur leurs mon
    ma mes ton ta tes son sa ses notre nos votre vos est sont suis es êtes sommes être ai as
    avons avez ont avoir été était pour par sur dans en avec sans sous chez ne pas comment
    quand combien pourquoi si très oui non`,
  es: `el la los las lo un una unos unas de del al que qué quien quién quienes cual cuál cuales
    cuáles cuando cuándo cuanto cuánto cuanta cuánta cuantos cuántos cuantas cuántas como cómo
    donde dónde por para con sin en sobre entre hasta desde yo tú tu él ella usted ustedes
    nosotros vosotros ellos ellas me te se nos os le les mi mis su sus nuestro nuestra es son
    soy eres somos está están estoy estás ser estar hay ha han he has muy más pero también si
    sí no ni este esta estos estas ese esa eso`,
  it: `il lo la gli le un uno una di del della dei delle dello degli dal dalla da al alla ai alle
    in nel nella nei nelle su sul sulla con per tra fra ed ma che chi cosa quale quali quando
    quanto quanta quanti quante come dove perché io tu lui lei noi voi loro mi ti si ci vi mio
    mia miei mie tuo tua suo sua nostro nostra vostro vostra è sono sei siamo siete essere ho
    hai ha abbiamo avete hanno non più anche molto questo questa questi queste quello quella`,
  nl: `de het een en of maar dat die dit deze wat wie waar wanneer hoe waarom welke ik jij je
    hij zij ze wij we jullie hen hun mij me mijn jouw uw zijn haar ons onze is ben bent was
    waren heb hebt heeft hebben had kan kunnen kunt wil willen moet moeten zal zullen van in op
    aan met voor naar bij uit om over door tot als te er niet geen ook nog wel al dan zo`,
  pt: `os as um uma uns umas de do da dos das em no na nos nas ao aos à às por pelo pela para com
    sem sobre entre ou mas que quem qual quais quando quanto quanta quantos quantas como onde
    porque eu tu ele ela você vocês nós eles elas me te se lhe lhes meu minha seu sua nosso
    nossa é são sou somos está estão estou ser estar tem têm tenho há foi não sim muito mais
    também este esta isso isto esse essa`,
};

/**
 * The stop words of `language` (a primary subtag) passed through `fold`, or undefined when it has
 * no list (then no word is dropped).
 */
export function stopWords(
  language: string,
  fold: (word: string) => string,
): ReadonlySet<string> | undefined {
  const list = lists[language];
  return list === undefined ? undefined : new Set(list.split(/\s+/).filter(Boolean).map(fold));
}
