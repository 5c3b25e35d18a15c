// bench_decoder.mjs: the language model's options of issue 37 in the bench
// (bench_attention --decoder, src/bench/bench_decoder.cpp), in every build that
// exists: generation characters per second with and without the key/value
// cache, at the lesson's context (32) and at 4x it, for a learned table and
// for rope; and training tokens per second for each option. Medians over
// rounds; each build's last losses are compared across builds (the same
// options must give the same bits everywhere).
//
//   decoderBench({ runOurBench, builds, rounds, steps, log, median }) -> result
//   decoderTable(result) -> lines to print

const pad = (s, w) => String(s).padStart(w);
const rate = (x) => (x == null ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

export function decoderBench({ runOurBench, builds, rounds, steps, log, median }) {
  const lines = [];
  for (let round = 0; round < rounds; round++)
    for (const b of builds) {
      log(`round ${round + 1}/${rounds}: the decoder's options, ${b.name}`);
      try {
        lines.push(...runOurBench(b, ['--decoder', String(steps)]).map((x) => ({ ...x, round })));
      } catch (e) {
        lines.push({ kind: 'error', build: b.name, error: String(e.message || e) });
      }
    }
  const errors = lines.filter((x) => x.error);
  const group = (kind, key) => {
    const m = new Map();
    for (const x of lines.filter((y) => y.kind === kind && !y.error)) {
      const k = key(x);
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(x);
    }
    return m;
  };
  const generation = [];
  for (const [, g] of group('generation', (x) => `${x.build}|${x.position}|${x.length}`)) {
    generation.push({
      build: g[0].build, position: g[0].position, context: g[0].context, length: g[0].length, generated: g[0].generated,
      chars_per_second_cache: median(g.map((x) => x.chars_per_second_cache)),
      chars_per_second_no_cache: median(g.map((x) => x.chars_per_second_no_cache)),
      same_text: g.every((x) => x.same_text),
      multiply_adds_next_cache: g[0].multiply_adds_next_cache, multiply_adds_next_no_cache: g[0].multiply_adds_next_no_cache,
      cache_entries: g[0].cache_entries, cache_bytes: g[0].cache_bytes,
    });
  }
  const training = [];
  for (const [, g] of group('option_training', (x) => x.options)) {
    const row = { options: g[0].options, parameters: g[0].parameters, steps, tokens_per_second: {}, last_loss: {} };
    for (const b of builds) {
      const mine = g.filter((x) => x.build === b.name);
      if (!mine.length) continue;
      row.tokens_per_second[b.name] = median(mine.map((x) => x.tokens_per_second));
      row.last_loss[b.name] = mine[0].last_loss;
    }
    row.same_loss_in_every_build = new Set(Object.values(row.last_loss)).size === 1;
    training.push(row);
  }
  return { rounds, steps, generation, training, errors };
}

export function decoderTable(r) {
  const out = [];
  out.push(`generation with and without the key/value cache (the lesson's model, untrained, an 8-character prompt, ` +
           `temperature 0.8; characters per second over the whole generation, median of ${r.rounds} round(s)):`);
  const gh = `${'build'.padEnd(11)} ${'position'.padEnd(8)} ${pad('length', 6)} | ${pad('cache', 8)} ${pad('no cache', 8)} ` +
             `${pad('ratio', 6)} | ${pad('MACs next (cache)', 17)} ${pad('(no cache)', 11)} | ${pad('cache KiB', 9)} | same text`;
  out.push(gh, '-'.repeat(gh.length));
  for (const g of r.generation)
    out.push(`${g.build.padEnd(11)} ${g.position.padEnd(8)} ${pad(g.length, 6)} | ${pad(rate(g.chars_per_second_cache), 8)} ` +
             `${pad(rate(g.chars_per_second_no_cache), 8)} ${pad((g.chars_per_second_cache / g.chars_per_second_no_cache).toFixed(2) + 'x', 6)} | ` +
             `${pad(g.multiply_adds_next_cache, 17)} ${pad(g.multiply_adds_next_no_cache, 11)} | ${pad((g.cache_bytes / 1024).toFixed(1), 9)} | ` +
             `${g.same_text ? 'yes' : 'NO'}`);
  out.push('');
  const builds = [...new Set(r.training.flatMap((t) => Object.keys(t.tokens_per_second)))];
  out.push(`training tokens per second with each option (the lesson's model, batch 8 x 32, ${r.steps} timed steps after 1 warm-up step, ` +
           `median of ${r.rounds} round(s)):`);
  const th = `${'options'.padEnd(36)} ${pad('parameters', 10)} | ${builds.map((b) => pad(b, 11)).join(' ')} | same loss`;
  out.push(th, '-'.repeat(th.length));
  for (const t of r.training)
    out.push(`${t.options.padEnd(36)} ${pad(t.parameters, 10)} | ${builds.map((b) => pad(rate(t.tokens_per_second[b]), 11)).join(' ')} | ` +
             `${t.same_loss_in_every_build ? 'yes' : 'NO'}`);
  for (const e of r.errors) out.push(`${e.build}: ${e.error}`);
  return out;
}
