// Screenshots of many pages with one headless chromium (slides.decks, check_decks.sh): a browser
// start costs about two seconds, a page a tenth of that, and the decks have some sixty slides to
// look at.
//
//   node screenshots.js CHROMIUM LIST
//
// LIST holds one "URL PNG" pair per line. Each URL opens in a fresh 1280 x 720 tab (a Marp deck's
// #N selects slide N); the tab is saved to PNG once the page and its images have loaded. A page
// that does not load (a missing file) gets no PNG and a line "no page: URL: why" on stderr; the
// exit status is 0 when every PNG was written, 1 otherwise, 2 when the browser does not start.
'use strict';
const fs = require('fs');
const path = require('path');

// puppeteer-core comes with Marp in slides/node_modules (slides/package.json names it).
const slides = path.join(__dirname, '..', '..', 'slides', 'node_modules');
let puppeteer;
try {
  puppeteer = require(path.join(slides, 'puppeteer-core'));
} catch (e) {
  console.error(`screenshots.js: puppeteer-core is not installed in ${slides} (scripts/build-slides runs npm ci): ${e.message}`);
  process.exit(2);
}

async function main() {
  const [chromium, listFile] = process.argv.slice(2);
  if (!chromium || !listFile) {
    console.error('usage: node screenshots.js CHROMIUM LIST');
    process.exit(2);
  }
  const jobs = fs.readFileSync(listFile, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean)
    .map((l) => { const i = l.lastIndexOf(' '); return { url: l.slice(0, i), png: l.slice(i + 1) }; });
  let browser;
  try {
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run'],
    });
  } catch (e) {
    console.error(`screenshots.js: ${chromium} does not start: ${e.message}`);
    process.exit(2);
  }
  let missing = 0;
  for (const { url, png } of jobs) {
    fs.rmSync(png, { force: true });
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1280, height: 720 });
      const response = await page.goto(url, { waitUntil: 'load', timeout: 60000 });
      if (response && !response.ok() && response.status() !== 0) throw new Error(`status ${response.status()}`);
      // Marp shows the slide the hash names after its script has run; one animation frame more.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: png });
      // A figure slide's caption must end above the page bar (the footer and the page number
      // share the bottom band): "caption: URL: ok" or "caption: URL: clash: ..." on stderr.
      const clashes = await page.evaluate(() => {
        const out = [];
        let seen = 0;
        for (const s of document.querySelectorAll('section.figure')) {
          const r = s.getBoundingClientRect();
          if (r.width < 10 || r.height < 10 || r.bottom <= 0 || r.top >= 720) continue;
          const ps = s.querySelectorAll(':scope > p');
          const cap = ps[ps.length - 1];
          const foot = s.querySelector(':scope > footer');
          if (!cap || !foot || cap.querySelector('img')) continue;
          seen += 1;
          const c = cap.getBoundingClientRect(), f = foot.getBoundingClientRect();
          if (c.bottom > f.top + 0.5)
            out.push(`caption ends at ${c.bottom.toFixed(0)} px, the page bar starts at ${f.top.toFixed(0)} px: ` +
                     cap.textContent.slice(0, 60));
        }
        return seen ? out : null;
      });
      if (clashes) console.error(`caption: ${url}: ${clashes.length ? 'clash: ' + clashes.join('; ') : 'ok'}`);
    } catch (e) {
      console.error(`no page: ${url}: ${e.message.split('\n')[0]}`);
      missing += 1;
    } finally {
      await page.close();
    }
  }
  await browser.close();
  process.exit(missing ? 1 : 0);
}

main().catch((e) => {
  console.error(`screenshots.js: ${e.stack || e}`);
  process.exit(2);
});
