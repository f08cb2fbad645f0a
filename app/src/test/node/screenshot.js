// node screenshot.js URL PNG|- TEXT [--code-end]: renders URL in headless Chromium (Debian's, or
// $ORDINAL_CHROMIUM), waits until the page's text holds TEXT (the Temporal Web UI loads a history after
// the page, and keeps long-polling a running workflow's, so "network idle" never comes), saves a
// screenshot (unless PNG is -) and prints the page's HTML. With --code-end, the page's code blocks are
// scrolled to their end first: the UI's editor renders only the lines in view. Used by
// WebUiScreenshotsIT and WebUiCodecIT; puppeteer-core is installed by ./ordinal test.
const puppeteer = require('puppeteer-core');

(async () => {
  const [url, png, text, option] = process.argv.slice(2);
  const codeEnd = option === '--code-end';
  const browser = await puppeteer.launch({
    executablePath: process.env.ORDINAL_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // No certificate errors ignored: the UI and its codec must work in a browser that trusts nothing of ours.
    args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1800, height: 1400});
    await page.goto(url, {waitUntil: 'domcontentloaded'});
    // A running workflow's current details are read once, at load: the UI's R key reads them again.
    const deadline = Date.now() + 90000;
    let reloadAt = Date.now() + 15000;
    const holdsText = async () => {
      if (codeEnd) {
        await page.evaluate(() => document.querySelectorAll('.cm-scroller')
            .forEach(scroller => { scroller.scrollTop = scroller.scrollHeight; }));
        await new Promise(resolve => setTimeout(resolve, 500)); // the editor draws the lines now in view
      }
      return page.evaluate(t => document.body.innerText.includes(t), text);
    };
    while (!(await holdsText())) {
      if (Date.now() > deadline) {
        console.error('the page never said "' + text + '"; it says:\n' + (await page.evaluate(() => document.body.innerText)));
        throw new Error('timed out waiting for "' + text + '" on ' + url);
      }
      await new Promise(resolve => setTimeout(resolve, 2000));
      if (await page.evaluate(() => document.body.innerText.includes("There's an error"))) {
        // The UI's own error page (its server's call to Temporal failed, seen under load): it asks
        // for a refresh, and R does not leave it.
        await page.reload({waitUntil: 'domcontentloaded'});
      } else if (Date.now() > reloadAt) {
        // Under load the UI has been seen to stop at its frame (no route drawn, R changes nothing) for a
        // whole minute: load the page again, as a user would.
        reloadAt = Date.now() + 15000;
        await page.reload({waitUntil: 'domcontentloaded'});
      } else {
        await page.keyboard.press('r');
      }
    }
    await new Promise(resolve => setTimeout(resolve, 1500)); // the rest of the rows and badges
    if (png !== '-') {
      await page.screenshot({path: png});
    }
    process.stdout.write(await page.content());
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
