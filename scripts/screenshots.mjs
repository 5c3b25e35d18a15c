// screenshots.mjs: the README's pictures of the lab as it is, taken in headless
// Chromium from the built page (build/web/site, or LAB_SITE):
//   docs/screenshot.png        a desktop window (1280 x 800), English
//   docs/screenshot-phone.png  a phone (390 x 844, touch, 2x pixels), Chinese
// Run after `scripts/lab build web`:  node scripts/screenshots.mjs
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import { openLab, frames, mirrorCaughtUp } from '../tests/browser/harness.mjs';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');

async function shoot({ file, lang, hash, ...view }) {
  const lab = await openLab({ hash, ...view });
  try {
    await lab.page.evaluate((l) => window.attnlab.setLanguage(l), lang);
    await mirrorCaughtUp(lab.page);
    await frames(lab.page, 5);
    await lab.page.screenshot({ path: join(docs, file) });
    console.log(`wrote docs/${file} (${lang}, ${view.width} x ${view.height}${view.touch ? ', touch' : ''}, ${hash})`);
  } finally {
    await lab.close();
  }
}

await shoot({ file: 'screenshot.png', lang: 'en', hash: '#heads-parallel/what-heads-learn', width: 1280, height: 800 });
await shoot({ file: 'screenshot-phone.png', lang: 'zh', hash: '#heads-parallel/what-heads-learn', width: 390, height: 844,
              deviceScaleFactor: 2, touch: true });
