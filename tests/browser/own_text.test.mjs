// The learner's own text for the language model (src/app/lab_own_text.h), in
// the page, as a learner gives it: pasted into the box beside the lesson, or a
// .txt file dropped on it, in English and in Chinese (one-line paragraphs ending
// in 。 kept). Every bad input -- empty, too short, not UTF-8, binary, too large,
// too many different characters -- gets its message in the learner's language,
// and the text and the model before it stay. The text never leaves the page (no
// request carries it), stays across a reload only when the learner asks, and a
// share link says it was trained on a text of the sender's without carrying it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, until } from './harness.mjs';

let lab;
const sent = [];  // every request body the page and its workers sent
before(async () => {
  lab = await openLab({ prepare: async (page) => page.context().on('request', (r) => sent.push(r.postData() || '')) });
});
after(async () => { await lab?.close(); });

const english = 'It was the best of times, it was the worst of times; it was the age of wisdom, it was the age of ' +
                'foolishness. We had everything before us, we had nothing before us.';
// Ten one-line paragraphs ending in 。, and characters the lessons never use (glyphs fetched).
const chinese = Array.from({ length: 10 }, (_, i) =>
  `第${'一二三四五六七八九十'[i]}天，我们在湖边看书、写字、喝茶，傍晚才慢慢走回家。`).join('\n\n');

const own = async (page) => (await state(page)).ownText;
// The box's status once the lab has answered (no glyphs pending).
async function answered(page) {
  await until(async () => !(await own(page)).pending, 'the lab to answer about the text', 120000);
  await frames(page, 3);
  return page.evaluate(() => document.getElementById('own-text-status').textContent);
}
async function paste(page, text) {
  await page.fill('#own-text-input', text);
  await page.click('#own-text-use');
  return answered(page);
}
// A file dropped on the box, as a learner drags one from their desktop.
async function drop(page, name, bytes) {
  await page.evaluate(([n, b]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], n, { type: 'text/plain' }));
    const box = document.getElementById('own-text');
    for (const type of ['dragenter', 'dragover', 'drop']) box.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, Array.from(bytes)]);
  await frames(page, 2);
  return answered(page);
}
const utf8 = (s) => new TextEncoder().encode(s);

test('pasted and dropped text, in English and Chinese, trains the model; 。-ended lines stay', async () => {
  const { page } = lab;
  await page.evaluate(() => window.attnlab.goto('language-model', 0));
  await until(() => page.evaluate(() => !!document.getElementById('own-text')), 'the box for the learner\'s own text');
  const t0 = Date.now();
  const en = await paste(page, english.repeat(3));
  assert.match(en, /^Training on your text: \d+ characters in 1 paragraph/);
  let s = await state(page);
  assert.equal(s.settings.corpus, 'own');
  assert.ok(s.ownText.has && s.ownText.ok);
  await page.evaluate(() => window.attnlab.train('run'));
  await until(async () => { const x = (await state(page)).experiment; return x && x.steps >= 20 ? x : null; }, '20 steps on the text', 180000);
  await page.evaluate(() => window.attnlab.train('pause'));
  s = await state(page);
  assert.equal(s.experiment.corpus, 'own');
  assert.ok(s.experiment.vocab < 40, `the model's table is the text's characters (${s.experiment.vocab})`);
  console.log(`English pasted: trained 20 steps ${Date.now() - t0} ms after the paste`);

  await page.evaluate(() => window.attnlab.setLanguage('zh'));
  await frames(page, 3);
  const zh = await drop(page, '诗.txt', utf8(chinese));
  assert.match(zh, /^正在用你的文本训练：10 段/);  // every 。-ended line is a paragraph of its own
  s = await state(page);
  assert.equal(s.ownText.paragraphs, 10);
  assert.equal(s.ownText.unshown, 0, 'every character of the text can be drawn (the common glyphs were fetched)');
  await until(async () => { const x = (await state(page)).experiment; return x && x.vocab ? x : null; }, 'the model of the Chinese text');
  const vocab = (await state(page)).experiment.vocab;
  assert.ok(vocab > 30, `the Chinese text's characters (${vocab})`);
  // English pasted again, and a dropped English file.
  await page.evaluate(() => window.attnlab.setLanguage('en'));
  await frames(page, 3);
  assert.match(await drop(page, 'dickens.txt', utf8(english.repeat(4))), /^Training on your text/);
  assert.match(await paste(page, english.repeat(2)), /^Training on your text/);
});

test('every bad input gets its message, and the text and model before it stay', async () => {
  const { page } = lab;
  const before = await own(page);
  const characters = before.characters;
  const check = (text, pattern, what) => {
    assert.match(text, pattern, what);
    assert.match(text, /Your earlier text is kept|之前的文本仍然保留/, `${what}: says the earlier text is kept`);
  };
  check(await paste(page, ''), /empty/, 'empty');
  check(await paste(page, '   \n\n  '), /empty/, 'white space only');
  check(await paste(page, 'Too short.'), /needs at least 200/, 'too short');
  check(await drop(page, 'latin1.txt', [0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b]), /not UTF-8/, 'not UTF-8');
  check(await drop(page, 'binary.txt', utf8('abc\u0000def '.repeat(40))), /binary/, 'binary');
  check(await drop(page, 'big.txt', new Uint8Array(1024 * 1024 + 1).fill(0x61)), /at most 1024 KiB/, 'too large');
  // Too many different characters: 1,500 of the commonest Chinese characters (the
  // first of GB 2312's, whose glyphs the lab fetches), each twice.
  const wide = await page.evaluate(() => {
    const bytes = [];
    for (let b1 = 0xb0; b1 < 0xd8 && bytes.length < 3000; b1++)
      for (let b2 = 0xa1; b2 < 0xff && bytes.length < 3000; b2++) bytes.push(b1, b2);
    return Array.from(new TextDecoder('gbk').decode(new Uint8Array(bytes))).map((c) => c + c).join('');
  });
  check(await paste(page, wide), /different characters/, 'a vocabulary too large to fit');
  const after = await own(page);
  assert.equal(after.characters, characters, 'the text before the bad inputs is still the one trained on');
  assert.equal((await state(page)).settings.corpus, 'own');
  // In Chinese too.
  await page.evaluate(() => window.attnlab.setLanguage('zh'));
  await frames(page, 3);
  check(await paste(page, ''), /文本是空的/, 'empty, in Chinese');
  check(await paste(page, '太短了。'), /至少需要 200/, 'too short, in Chinese');
  await page.evaluate(() => window.attnlab.setLanguage('en'));
});

test('the text never leaves the page, stays across a reload only when asked, and a share link says so', async () => {
  const { page, reload } = lab;
  const marker = 'Zyzzyva quokka marmalade';  // words no request would carry by chance
  assert.match(await paste(page, (marker + '. ' + english).repeat(3)), /^Training/);
  assert.ok(!sent.some((b) => b.includes(marker)), 'a request carried the learner\'s text');
  // Not kept: gone after a reload.
  await reload();
  assert.equal((await own(page)).has, false);
  // Kept: there after a reload, without asking again.
  await page.evaluate(() => window.attnlab.goto('language-model', 0));
  await until(() => page.evaluate(() => !!document.getElementById('own-text')), 'the box');
  await page.check('#own-text-keep');
  assert.match(await paste(page, (marker + '. ' + english).repeat(3)), /kept on this device/);
  const link = await page.evaluate(() => window.attnlab.share());
  assert.ok(!link.includes('Zyzzyva'), 'the share link carries no text');
  await reload();
  await until(async () => (await own(page)).has, 'the kept text, read back after the reload');
  // A share link opened where the text is not: the built-in text, and a note.
  await page.evaluate(() => localStorage.clear());
  await reload('#' + link);
  const s = await state(page);
  assert.equal(s.settings.corpus, 'english');
  assert.ok(s.notices.some((n) => n.includes('own text')), `the note: ${JSON.stringify(s.notices)}`);
});
