# cmake -P: the characters the CJK font subset must contain (the lessons and the
# UI's own labels), from FILES ('|'-separated) into OUT: each character outside
# ASCII once, in code point order. The page preloads this file (the app takes
# exactly these glyphs from the font), so it holds no text, only the set.
string(REPLACE "|" ";" FILES "${FILES}")
set(all "")
foreach(f ${FILES})
  file(READ ${f} text)
  string(APPEND all "${text}\n")
endforeach()
file(WRITE ${OUT}.all "${all}")
# CMake's strings are bytes; python3 (fonttools' own interpreter) counts characters.
execute_process(
  COMMAND python3 -c "import sys; t = open(sys.argv[1], encoding='utf-8').read(); open(sys.argv[2], 'w', encoding='utf-8').write(''.join(sorted({c for c in t if ord(c) > 127})) + '\\n')"
          ${OUT}.all ${OUT}.tmp
  RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "cjk_text.cmake: could not collect the characters of ${FILES}")
endif()
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp ${OUT}.all)
