/**
 * The widget's text colour on the site's colour (`readableOn`, for the launcher's icon and the
 * primary buttons' words): at least 4.5:1 by the WCAG 2.1 contrast formula, whatever the colour.
 * A grid of colours, each channel in steps of 0x11, one test per red value naming every colour
 * that fails; and the greys either side of where black and white trade places.
 */
import { expect } from "chai";
import { readableOn } from "../widget/src/dom.ts";

/** WCAG 2.1 relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.1 contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const AA = 4.5;
const STEPS = Array.from({ length: 16 }, (_, i) => (i * 0x11).toString(16).padStart(2, "0"));

describe("readableOn: the widget's text colour on a site's colour", () => {
  for (const red of STEPS) {
    it(`gives ${AA}:1 or more on every colour #${red}xxxx of the grid`, () => {
      const failing = STEPS.flatMap((green) => STEPS.map((blue) => `#${red}${green}${blue}`))
        .map((colour) => ({ colour, text: readableOn(colour) }))
        .filter(({ colour, text }) => contrast(colour, text) < AA)
        .map(({ colour, text }) => `${text} on ${colour}: ${contrast(colour, text).toFixed(2)}`);
      expect(failing).to.deep.equal([]);
    });
  }

  for (const colour of ["#747474", "#757575", "#767676", "#777777", "#FDE047", "#1E3A8A"]) {
    it(`gives ${AA}:1 or more on ${colour}`, () => {
      expect(contrast(colour, readableOn(colour))).to.be.at.least(AA);
    });
  }
});
