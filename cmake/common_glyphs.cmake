# cmake -P: the characters of the common-glyphs font, which the page fetches only
# when a learner's own text needs Chinese characters its lessons never use: the
# 3,755 characters of GB 2312's first level (the commonest Chinese characters,
# which the standard lists in rows 16 to 55), with the CJK and full-width
# punctuation of its first rows, written to OUT. Python's own gb2312 codec gives
# them; nothing is downloaded.
execute_process(
  COMMAND python3 -c "import sys; rows = list(range(0xA1, 0xA4)) + list(range(0xB0, 0xD8)); out = []\nfor b1 in rows:\n  for b2 in range(0xA1, 0xFF):\n    try: out.append(bytes([b1, b2]).decode('gb2312'))\n    except UnicodeDecodeError: pass\nopen(sys.argv[1], 'w', encoding='utf-8').write(''.join(out) + '\\n')"
          ${OUT}.tmp
  RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "common_glyphs.cmake: could not list GB 2312's first level (python3's gb2312 codec)")
endif()
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
