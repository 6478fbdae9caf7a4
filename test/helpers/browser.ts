import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { toPalettePng } from "./png.js";

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it). */
const CHROMIUM = "/usr/bin/chromium";
/** As root and on a closed network: no sandbox, and none of chromium's own calls home. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const SCREENSHOT_DIR = fileURLToPath(new URL("../../test-artifacts/screenshots/", import.meta.url));

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** Saves the page as it looks at 1280 px and at 390 px wide (test-artifacts/screenshots/NAME-WIDTH.png). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

/** The screenshots the README shows (docs/screenshots/), kept in the repository. */
export const DOC_SCREENSHOT_DIR = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

/**
 * Saves the whole page at 1280 px and 390 px wide into docs/screenshots/NAME-WIDTH.png as a palette PNG
 * (toPalettePng), and answers the page's scrollWidth at each width (content wider than the viewport would
 * scroll the whole page sideways).
 */
export async function docScreenshots(page: Page, name: string): Promise<Record<1280 | 390, number>> {
  mkdirSync(DOC_SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  const widths = {} as Record<1280 | 390, number>;
  // A message shown for a few seconds would cover what the picture is for.
  await page.evaluate(() => document.querySelector(".toast")?.classList.remove("shown"));
  for (const width of [1280, 390] as const) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    // The page draws its charts again for the new width (after a 100 ms pause for the resize to settle).
    await page.waitForTimeout(300);
    widths[width] = await page.evaluate(() => document.documentElement.scrollWidth);
    const png = await page.screenshot({ fullPage: true });
    writeFileSync(path.join(DOC_SCREENSHOT_DIR, `${name}-${width}.png`), toPalettePng(png));
  }
  if (original) await page.setViewportSize(original);
  return widths;
}

/** True when the page is wider than its viewport (content that does not fit at that width). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}

/** The visible controls (inputs, selects, buttons, links) that have no accessible name, described for a message. */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const visible = (e: Element) => (e as HTMLElement).offsetParent !== null;
    const named = (e: Element) => {
      if (e.getAttribute("aria-label")?.trim() || e.getAttribute("aria-labelledby")) return true;
      if ((e instanceof HTMLInputElement || e instanceof HTMLSelectElement || e instanceof HTMLTextAreaElement) && e.labels && e.labels.length > 0)
        return true;
      return (e.tagName === "BUTTON" || e.tagName === "A") && (e.textContent ?? "").trim().length > 0;
    };
    return [...document.querySelectorAll("input, select, textarea, button, a[href]")]
      .filter((e) => visible(e) && !named(e))
      .map((e) => e.outerHTML.slice(0, 120));
  });
}
