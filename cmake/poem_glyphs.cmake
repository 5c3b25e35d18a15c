# cmake -P: the characters of the Tang poems' glyph font (fetched with the poems,
# never before the first frame): the TOP commonest characters of CORPUS (ANSI
# colour codes removed; ties by code point), written to OUT in code point order.
# The language model's vocabulary is the 500 commonest of the poems' training
# split, a subset of these (tests/experiments/test_experiment_lm.cpp checks that).
execute_process(
  COMMAND python3 -c "import collections, re, sys; t = re.sub(re.escape(chr(27) + chr(91)) + '[0-9;]*m', '', open(sys.argv[1], encoding='utf-8').read()); c = collections.Counter(ch for ch in t if ord(ch) >= 0x3000); top = [k for k, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:int(sys.argv[3])]]; open(sys.argv[2], 'w', encoding='utf-8').write(''.join(sorted(top)) + '\\n')"
          ${CORPUS} ${OUT}.tmp ${TOP}
  RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "poem_glyphs.cmake: could not count the characters of ${CORPUS}")
endif()
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
