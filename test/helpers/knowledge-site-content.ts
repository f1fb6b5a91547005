/**
 * What the content extractor keeps of each page of the knowledge fixture site (see
 * knowledge-site-server.ts), written out by hand-checked value: the title, the language and the
 * sections (heading path, section id, text) of every page, and nothing of its navigation, header,
 * footer, cookie banner or scripts. The extractor's test compares with it; tests of the crawl and
 * the index can take it for what a crawl of the site stores.
 */
import type { PageContent } from "../../core/intelligence/knowledge/knowledge-types.ts";

/** A section's text from its lines. */
const lines = (...text: string[]) => text.join("\n");

/** By page path, as KNOWLEDGE_SITE_PAGES lists them. */
export const KNOWLEDGE_SITE_CONTENT: Record<string, Omit<PageContent, "url">> = {
  "/": {
    title: "Lindenhof Dental – Dentist in Freiburg",
    language: "en",
    sections: [
      {
        headings: ["Lindenhof Dental – your dentist in Freiburg"],
        sectionId: "welcome",
        text: lines(
          "Friendly, modern dentistry in the heart of the Wiehre district. We look after whole families, from a child's first tooth to implants, and we take the time to explain what we do.",
          "Book an appointment",
        ),
      },
      {
        headings: ["Lindenhof Dental – your dentist in Freiburg", "Welcoming new patients"],
        sectionId: "new-patients",
        text: "We are currently accepting new patients of all ages, including families with small children. Most new patients get a first appointment within two weeks. Read your first visit to see what to expect.",
      },
      {
        headings: ["Lindenhof Dental – your dentist in Freiburg", "Why patients choose us"],
        sectionId: "why-us",
        text: lines(
          "- Digital X-rays with up to 90 % less radiation than film",
          "- Gentle care for nervous patients, with laughing gas on request",
          "- Step-free entrance and a lift up to our practice on the second floor, so it is fully wheelchair accessible",
          "- Late appointments until 8 pm on Tuesdays and Thursdays",
        ),
      },
      {
        headings: ["Lindenhof Dental – your dentist in Freiburg", "What our patients say"],
        sectionId: "reviews",
        text: lines(
          "“I have been terrified of dentists all my life. Here, for the first time, I never felt rushed.”",
          "— Katrin, patient since 2019",
          "We are rated 4.9 out of 5 from over 300 reviews on Google.",
        ),
      },
      {
        headings: ["Lindenhof Dental – your dentist in Freiburg", "News"],
        sectionId: "news",
        text: "From 1 September 2025, Dr. Amira Haddad joins our team as a paediatric dentist, and we will open on the first and third Saturday morning of every month.",
      },
    ],
  },
  "/about": {
    title: "About us – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["About Lindenhof Dental"],
        sectionId: "story",
        text: "Dr. Jonas Weber founded the practice in 2009 in a restored 1900s townhouse on Lindenhofstraße. What started with two treatment chairs is today a team of fourteen people with five treatment rooms and our own small dental laboratory.",
      },
      {
        headings: ["About Lindenhof Dental", "How we work"],
        sectionId: "philosophy",
        text: "We explain every step before we start, and you get a written cost estimate before any treatment that your insurance does not pay in full. We would always rather save a tooth than replace it.",
      },
      {
        headings: ["About Lindenhof Dental", "Languages"],
        sectionId: "languages",
        text: "Our team speaks German, English, French and Turkish. If you need another language, tell us when you book and we will arrange an interpreter.",
      },
      {
        headings: ["About Lindenhof Dental", "Greener dentistry"],
        sectionId: "sustainability",
        text: "We want our practice to be kind to the environment. Our electricity comes from 100 % renewable sources, we take digital impressions instead of using single-use trays wherever we can, and old amalgam is separated and recycled. Since 2021 we no longer place amalgam fillings at all.",
      },
    ],
  },
  "/team": {
    title: "Our team – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Our team"],
        sectionId: "team",
        text: "Fourteen people look after you at Lindenhof Dental: three dentists, two dental hygienists, seven dental assistants and our reception team.",
      },
      {
        headings: ["Our team", "Dentists", "Dr. Jonas Weber"],
        sectionId: "dr-weber",
        text: "Founder of the practice. He studied dentistry in Freiburg and Dublin and focuses on implants, crowns and bridges. Speaks German and English.",
      },
      {
        headings: ["Our team", "Dentists", "Dr. Selin Yılmaz"],
        sectionId: "dr-yilmaz",
        text: "Specialist orthodontist: braces and clear aligners for children and adults. Speaks German, English and Turkish.",
      },
      {
        headings: ["Our team", "Dentists", "Dr. Amira Haddad"],
        sectionId: "dr-haddad",
        text: "Our children's dentist from September 2025. Trained in Lyon; speaks French, English and German. She takes extra time with little ones who are scared.",
      },
      {
        headings: ["Our team", "Dental hygienists"],
        sectionId: "hygienists",
        text: "Lena Hoffmann and Marco Rossi do our professional cleanings and treat gum disease. Marco also speaks Italian.",
      },
      {
        headings: ["Our team", "Reception"],
        sectionId: "reception",
        text: "Sabine Keller and Tobias Brandt answer the phone, book your appointments and help with questions about insurance and invoices.",
      },
    ],
  },
  "/services": {
    title: "Treatments – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Our treatments"],
        sectionId: "main",
        text: "From check-ups to implants, we offer almost every treatment under one roof. Wisdom teeth that have to come out under general anaesthetic are referred to the oral surgery department of the University Hospital.",
      },
      {
        headings: ["Our treatments", "Prevention"],
        sectionId: "prevention",
        text: lines(
          "- Professional teeth cleaning, twice a year, keeps tartar and gum disease away",
          "- Check-ups every six months",
          "- Fissure sealing for children's back teeth",
        ),
      },
      {
        headings: ["Our treatments", "Fillings, crowns and bridges"],
        sectionId: "restorative",
        text: "We use tooth-coloured composite fillings and ceramic crowns made in our own lab. A crown takes two visits about two weeks apart; in between you wear a temporary crown.",
      },
      {
        headings: ["Our treatments", "Implants"],
        sectionId: "implants-overview",
        text: "A missing tooth can be replaced with a titanium or ceramic implant. More about implants",
      },
      {
        headings: ["Our treatments", "Whitening"],
        sectionId: "whitening",
        text: "Bleaching in the practice in one 90-minute session, or at home with custom-made trays over two weeks. We do not bleach teeth during pregnancy or for under-18s.",
      },
      {
        headings: ["Our treatments", "Teeth grinding"],
        sectionId: "grinding",
        text: "If you wake up with jaw pain or headaches, you may grind your teeth at night. A custom night guard protects your teeth, and we show you exercises to relax your jaw.",
      },
    ],
  },
  "/services/cleaning": {
    title: "Professional teeth cleaning – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: [],
        sectionId: null,
        text: "Prevention",
      },
      {
        headings: ["Professional teeth cleaning"],
        sectionId: "cleaning",
        text: "A professional cleaning removes hard tartar and soft plaque, also where your brush and floss do not reach, and polishes your teeth smooth so that new plaque sticks less easily.",
      },
      {
        headings: ["Professional teeth cleaning", "What happens during a cleaning"],
        sectionId: "cleaning-steps",
        text: lines(
          "- We check your gums and measure the depth of the pockets.",
          "- Tartar is removed with ultrasound and fine hand instruments.",
          "- Stains from coffee, tea or smoking are removed with a powder jet.",
          "- Your teeth are polished and protected with a fluoride varnish.",
          "A cleaning takes about an hour. Most people find it painless; if your teeth are sensitive we numb them with a gel first.",
        ),
      },
      {
        headings: ["Professional teeth cleaning", "Who pays for it"],
        sectionId: "cleaning-insurance",
        text: lines(
          "Statutory health insurers do not pay for professional cleanings in full, but many of them (for example TK, AOK Baden-Württemberg and Barmer) give you €40 to €80 a year towards it. Private insurers usually pay the whole bill. See our prices.",
          "Last reviewed by Dr. Jonas Weber in March 2025.",
        ),
      },
    ],
  },
  "/services/implants": {
    title: "Dental implants – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Dental implants"],
        sectionId: "implants",
        text: "An implant is an artificial tooth root placed in the jawbone. It carries a crown, a bridge or a denture, looks and feels like your own tooth and, well cared for, lasts for decades.",
      },
      {
        headings: ["Dental implants", "From consultation to new tooth"],
        sectionId: "implant-process",
        text: lines(
          "- Consultation with a 3D scan of your jaw to measure the bone.",
          "- The implant is placed under local anaesthetic, which takes about an hour.",
          "- It heals into the bone for three to four months; meanwhile you wear a temporary tooth.",
          "- The final ceramic crown is fitted.",
          "All in all, expect four to six months from the first consultation to the finished tooth.",
        ),
      },
      {
        headings: ["Dental implants", "Not enough bone?"],
        sectionId: "bone-graft",
        text: "If the jawbone has shrunk, we first rebuild it with a bone graft or a sinus lift. This adds another three to six months of healing.",
      },
      {
        headings: ["Dental implants", "Who can have an implant"],
        sectionId: "implant-suitability",
        text: "There is no upper age limit: our oldest implant patient was 91. Heavy smokers and people with poorly controlled diabetes heal more slowly, so we talk through the risks first.",
      },
      {
        headings: ["Dental implants", "Titanium or ceramic"],
        sectionId: "implant-materials",
        text: "Most implants are made of titanium, which has been used for over 40 years. For patients with a metal allergy or thin gums we also offer metal-free zirconia implants.",
      },
      {
        headings: ["Dental implants", "Costs"],
        sectionId: "implant-cost",
        text: "A single implant including its crown usually costs between €2,400 and €3,200. Statutory insurance pays a fixed subsidy of about €400 to €700 towards the crown; the rest is paid by you or your supplementary insurance. You get a written estimate before we start.",
      },
    ],
  },
  "/services/orthodontics": {
    title: "Braces and aligners – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Orthodontics for children and adults"],
        sectionId: "orthodontics",
        text: "Dr. Selin Yılmaz straightens teeth at any age, with fixed braces, removable plates or clear aligners.",
      },
      {
        headings: ["Orthodontics for children and adults", "Children and teenagers"],
        sectionId: "ortho-children",
        text: "We recommend a first orthodontic check at about age nine, while the jaw is still growing. For under-18s, statutory insurance pays for braces when the misalignment is marked enough (grade 3 or higher). Parents pay 20 % at first and get it back once the treatment is completed.",
      },
      {
        headings: ["Orthodontics for children and adults", "Clear aligners for adults"],
        sectionId: "aligners",
        text: "Aligners are almost invisible plastic trays that you change every one to two weeks. Treatment usually takes 6 to 18 months and costs €3,500 to €6,000. You wear them 22 hours a day and take them out to eat.",
      },
      {
        headings: ["Orthodontics for children and adults", "After the braces"],
        sectionId: "retainers",
        text: "To stop teeth from moving back, we bond a thin wire behind your front teeth and give you a clear retainer to wear at night.",
      },
    ],
  },
  "/services/emergency": {
    title: "Dental emergencies – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Dental emergencies", "In pain during our opening hours"],
        sectionId: "same-day",
        text: "Call us as early as you can, ideally at 8:00. We keep slots free every day for patients with toothache, a swollen face or an accident, and we see you the same day.",
      },
      {
        headings: ["Dental emergencies", "Nights, weekends and public holidays"],
        sectionId: "out-of-hours",
        text: "The dental emergency service for Freiburg answers on 0761 120 120 and tells you which practice is on duty. It treats patients on Saturdays, Sundays and public holidays from 10:00 to 12:00 and 17:00 to 18:00. If swelling makes it hard to breathe or swallow, call 112.",
      },
      {
        headings: ["Dental emergencies", "A tooth was knocked out"],
        sectionId: "knocked-out",
        text: "Pick the tooth up by the crown, not the root, and do not clean it. Keep it in cold milk or a tooth rescue box and come to us or the emergency service within an hour: the sooner, the better the chance of saving it.",
      },
    ],
  },
  "/opening-hours": {
    title: "Opening hours – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Opening hours", "Regular hours"],
        sectionId: "weekly-hours",
        text: lines(
          "Practice hours",
          "Morning | Afternoon",
          "Monday | 8:00–12:30 | 14:00–18:00",
          "Tuesday | 8:00–12:30 | 14:00–20:00",
          "Wednesday | 8:00–13:00",
          "Thursday | 8:00–12:30 | 14:00–20:00",
          "Friday | 8:00–14:00",
          "Saturday | 9:00–12:00, first and third Saturday of the month",
          "Sunday | Closed",
          "We close for lunch from 12:30 to 14:00, and the practice is closed on Wednesday and Friday afternoons.",
          "Tip: Tuesday and Thursday evenings are the quietest times, with the shortest waits.",
        ),
      },
      {
        headings: ["Opening hours", "Reaching us by phone"],
        sectionId: "phone-hours",
        text: "Reception answers the phone from 7:45 on weekdays until the practice closes. At other times you can leave a message on the answering machine or book online around the clock.",
      },
      {
        headings: ["Opening hours", "Holidays and closures"],
        sectionId: "holidays",
        text: lines(
          "We are closed on public holidays in Baden-Württemberg, and also:",
          "- 11 to 22 August 2025 (summer break)",
          "- 23 December 2025 to 2 January 2026 (Christmas break)",
          "While we are away, the practice of Dr. Müller, Kaiser-Joseph-Straße 20, phone 0761 2233 44, sees our patients who are in pain.",
        ),
      },
    ],
  },
  "/insurance": {
    title: "Insurance and payment – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Insurance and payment", "Statutory health insurance"],
        sectionId: "statutory",
        text: lines(
          "We treat patients of all statutory health insurers. Just bring your health insurance card. Among them:",
          "- AOK Baden-Württemberg",
          "- Techniker Krankenkasse (TK)",
          "- Barmer",
          "- DAK-Gesundheit",
          "- IKK classic and all company health insurance funds (BKK)",
        ),
      },
      {
        headings: ["Insurance and payment", "Private and supplementary insurance"],
        sectionId: "private",
        text: lines(
          "Privately insured patients get an itemised invoice under the German fee scale for dentists, which they send to their insurer. We regularly work with:",
          "- Private health insurers",
          "  - Allianz",
          "  - AXA",
          "  - Debeka",
          "  - DKV",
          "- Supplementary dental plans",
          "  - ERGO",
          "  - Württembergische",
        ),
      },
      {
        headings: ["Insurance and payment", "Visitors and international students"],
        sectionId: "international",
        text: "Visitors from other EU countries are treated with their European Health Insurance Card (EHIC). If you have travel or student insurance from abroad, you pay the invoice yourself and claim the money back; we give you a receipt in English.",
      },
      {
        headings: ["Insurance and payment", "Paying your bill"],
        sectionId: "payment",
        text: lines(
          "You can pay by bank transfer within 30 days, or at reception by debit card, credit card (Visa, Mastercard, American Express) or cash.",
          "For treatment over €1,000 you can pay in interest-free monthly instalments over up to 12 months.",
        ),
      },
    ],
  },
  "/prices": {
    title: "Prices – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Prices"],
        sectionId: "prices",
        text: "These are our prices for self-paying patients and for the part your statutory insurance does not cover. Privately insured patients are billed under the official fee scale, which usually comes to the same.",
      },
      {
        headings: ["Prices", "Price list"],
        sectionId: "price-list",
        text: lines(
          "Common treatments (2025)",
          "Treatment | Duration | Price",
          "Check-up with advice | 20 min | €45",
          "Professional teeth cleaning | 60 min | €90–€130",
          "Composite filling, one surface | 45 min | from €80",
          "Ceramic crown | 2 visits | €650–€900",
          "Whitening in the practice | 90 min | €390",
          "Whitening at home with custom trays | 2 visits | €250",
          "Night guard for teeth grinding | 2 visits | €280",
          "Sports mouthguard | 2 visits | €120",
          "All prices include VAT where it applies and the costs of our lab.",
        ),
      },
      {
        headings: ["Prices", "Cost estimates"],
        sectionId: "estimates",
        text: "Before any treatment over €300 you get a written estimate, free of charge. If you have supplementary insurance, send it to them first: they will tell you how much they pay.",
      },
      {
        headings: ["Prices", "Cancellations"],
        sectionId: "cancellations",
        text: "Please cancel at least 24 hours before your appointment. If you miss an appointment without telling us, we charge €40 for each half hour we kept free for you.",
      },
    ],
  },
  "/faq": {
    title: "Frequently asked questions – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Frequently asked questions", "Appointments", "Can I book online?"],
        sectionId: "faq-online-booking",
        text: "Yes: check-ups, cleanings and first visits can be booked online on our booking page at any time of day. If you are in pain, please call instead so that we can see you the same day.",
      },
      {
        headings: ["Frequently asked questions", "Appointments", "What if I am running late?"],
        sectionId: "faq-late",
        text: "Give us a call. If you are more than 15 minutes late we may have to move you to another day, so that other patients do not have to wait.",
      },
      {
        headings: [
          "Frequently asked questions",
          "Appointments",
          "From what age should children see a dentist?",
        ],
        sectionId: "faq-children",
        text: "Bring your baby along from the first tooth, at around six months. Early visits are playful and help children get used to us. Check-ups for children are covered by every statutory insurer.",
      },
      {
        headings: ["Frequently asked questions", "Treatment", "Will it hurt?"],
        sectionId: "faq-pain",
        text: "We numb the area before anything that could hurt. For anxious patients we offer laughing gas and, for longer treatments, sedation, and you can raise your hand at any time for a break.",
      },
      {
        headings: ["Frequently asked questions", "Treatment", "Can I be treated while pregnant?"],
        sectionId: "faq-pregnancy",
        text: "Yes. Check-ups and cleanings are even recommended during pregnancy, when gums bleed more easily. Where we can, we postpone X-rays and elective treatments until after the birth.",
      },
      {
        headings: [
          "Frequently asked questions",
          "Treatment",
          "Do you remove old amalgam fillings?",
        ],
        sectionId: "faq-amalgam",
        text: "Yes, under a rubber dam and strong suction that protect you from the particles. We replace them with composite or ceramic.",
      },
      {
        headings: ["Frequently asked questions", "Practical matters", "Where can I park?"],
        sectionId: "faq-parking",
        text: "Our car park behind the building has four spaces for patients, one of them for disabled drivers. The public car park at Wiehre station is a three-minute walk away.",
      },
      {
        headings: [
          "Frequently asked questions",
          "Practical matters",
          "Is there Wi-Fi in the waiting room?",
        ],
        sectionId: "faq-wifi",
        text: "Yes, ask reception for the password. There is also a play corner for children.",
      },
      {
        headings: [
          "Frequently asked questions",
          "Practical matters",
          "Can you send my records to another dentist?",
        ],
        sectionId: "faq-records",
        text: "Yes. Send us a signed request by email or post and we forward your X-rays and records within a week, free of charge.",
      },
    ],
  },
  "/contact": {
    title: "Contact and directions – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Contact and directions", "Address"],
        sectionId: "address",
        text: lines(
          "Lindenhof Dental",
          "Lindenhofstraße 12, second floor",
          "79100 Freiburg im Breisgau",
          "Phone",
          "0761 4587 230",
          "Email",
          "hello@lindenhof-dental.example",
          "Fax",
          "0761 4587 239",
        ),
      },
      {
        headings: ["Contact and directions", "Getting here"],
        sectionId: "directions",
        text: "Take tram line 2 towards Günterstal and get off at Lorettostraße; from there it is a two-minute walk up the hill. You can lock your bike in our courtyard.",
      },
      {
        headings: ["Contact and directions", "Request an appointment"],
        sectionId: "appointment",
        text: "Tell us which days and times suit you, and we will get back to you within one working day.",
      },
    ],
  },
  "/new-patients": {
    title: "Your first visit – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Your first visit"],
        sectionId: "first-visit",
        text: "Welcome! Here is what to expect when you come to us for the first time.",
      },
      {
        headings: ["Your first visit", "What to bring"],
        sectionId: "what-to-bring",
        text: lines(
          "- Your health insurance card, or your private insurance details",
          "- A list of the medicines you take",
          "- Your bonus booklet, if you have one",
          "- X-rays from your previous dentist, if they are less than two years old",
        ),
      },
      {
        headings: ["Your first visit", "Before your appointment"],
        sectionId: "before-you-come",
        text: lines(
          "- Fill in the medical history form at home (in German, English or Turkish) to save time.",
          "- Arrive ten minutes early so that we can read your card.",
          "- Eat as usual: there is no need to skip breakfast for a check-up.",
        ),
      },
      {
        headings: ["Your first visit", "The first appointment"],
        sectionId: "first-appointment",
        text: "Your first appointment takes about 45 minutes: a full check-up, X-rays if needed, and time for your questions. You leave with a treatment plan and, where treatment is needed, a cost estimate.",
      },
    ],
  },
  "/staff/rota": {
    title: "Staff rota (internal) – Lindenhof Dental",
    language: "en",
    sections: [
      {
        headings: ["Staff rota"],
        sectionId: "rota",
        text: "Internal page for the team: who is on which shift this week. Not for patients.",
      },
    ],
  },
  "/de/": {
    title: "Zahnarzt in Freiburg – Lindenhof Dental",
    language: "de",
    sections: [
      {
        headings: ["Willkommen bei Lindenhof Dental"],
        sectionId: "inhalt",
        text: "Ihre Zahnarztpraxis in der Wiehre, mitten in Freiburg. Wir behandeln gesetzlich und privat Versicherte und nehmen uns Zeit für Ihre Fragen – auf Deutsch, Englisch, Französisch oder Türkisch.",
      },
      {
        headings: ["Willkommen bei Lindenhof Dental", "Sprechzeiten"],
        sectionId: "sprechzeiten",
        text: lines(
          "Tag | Uhrzeit",
          "Montag | 8:00–12:30 und 14:00–18:00",
          "Dienstag und Donnerstag | 8:00–12:30 und 14:00–20:00",
          "Mittwoch | 8:00–13:00",
          "Freitag | 8:00–14:00",
          "Samstag | 9:00–12:00 (am ersten und dritten Samstag im Monat)",
          "Sonntag und Feiertage | geschlossen",
        ),
      },
      {
        headings: ["Willkommen bei Lindenhof Dental", "Gesetzlich versichert?"],
        sectionId: "kassenpatienten",
        text: "Wir rechnen mit allen gesetzlichen Krankenkassen ab. Bitte bringen Sie Ihre Gesundheitskarte und Ihr Bonusheft zum Termin mit. Die Kontrolluntersuchung zweimal im Jahr übernimmt Ihre Kasse vollständig.",
      },
      {
        headings: ["Willkommen bei Lindenhof Dental", "So finden Sie uns"],
        sectionId: "anfahrt",
        text: "Lindenhofstraße 12, 2. Obergeschoss (mit Aufzug), 79100 Freiburg im Breisgau. Mit der Straßenbahnlinie 2 bis zur Haltestelle Lorettostraße, danach zwei Minuten zu Fuß bergauf. Wenn Sie mit dem Auto kommen: Für Patienten gibt es vier Parkplätze im Hof hinter dem Haus.",
      },
      {
        headings: ["Willkommen bei Lindenhof Dental", "Zahnschmerzen am Wochenende?"],
        sectionId: "notdienst",
        text: "Außerhalb unserer Sprechzeiten erreichen Sie den zahnärztlichen Notdienst unter 0761 120 120. Ist ein Zahn ausgeschlagen, bewahren Sie ihn in kalter Milch auf und kommen Sie sofort, spätestens innerhalb einer Stunde.",
      },
    ],
  },
  "/de/leistungen": {
    title: "Leistungen – Lindenhof Dental",
    language: "de",
    sections: [
      {
        headings: ["Unsere Leistungen"],
        sectionId: "leistungen",
        text: "Von der Vorsorge bis zum Implantat: fast alles unter einem Dach.",
      },
      {
        headings: ["Unsere Leistungen", "Professionelle Zahnreinigung"],
        sectionId: "prophylaxe",
        text: "Die professionelle Zahnreinigung dauert etwa eine Stunde und kostet zwischen 90 und 130 Euro. Viele gesetzliche Krankenkassen zahlen einen Zuschuss von 40 bis 80 Euro im Jahr.",
      },
      {
        headings: ["Unsere Leistungen", "Kieferorthopädie"],
        sectionId: "kieferorthopaedie",
        text: "Feste Zahnspangen für Kinder und fast unsichtbare Aligner für Erwachsene. Bei Kindern und Jugendlichen unter 18 Jahren übernimmt die Krankenkasse die Kosten ab einer deutlichen Fehlstellung.",
      },
      {
        headings: ["Unsere Leistungen", "Für Angstpatienten"],
        sectionId: "angstpatienten",
        text: "Wenn Sie Angst vor der Behandlung haben, nehmen wir uns besonders viel Zeit. Auf Wunsch behandeln wir mit Lachgas oder im Dämmerschlaf, und Sie bestimmen mit einem Handzeichen, wann wir eine Pause machen.",
      },
      {
        headings: ["Unsere Leistungen", "Zahnaufhellung"],
        sectionId: "bleaching",
        text: "Bleaching in der Praxis in einer Sitzung von 90 Minuten für 390 Euro, oder für zu Hause mit individuell angefertigten Schienen für 250 Euro. Während der Schwangerschaft und bei Jugendlichen unter 18 Jahren hellen wir keine Zähne auf.",
      },
      {
        headings: ["Unsere Leistungen", "Implantate"],
        sectionId: "implantate",
        text: "Ein Implantat ersetzt die Wurzel eines fehlenden Zahns. Von der Beratung bis zur fertigen Krone vergehen meist vier bis sechs Monate; ein einzelnes Implantat mit Krone kostet etwa 2.400 bis 3.200 Euro.",
      },
    ],
  },
};
