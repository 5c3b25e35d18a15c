# cmake -P: the characters the two CJK font subsets must contain (cjk_split.py
# says which goes where): FIRST ('|'-separated files: the UI's and the demos'
# sources, lessons/index.txt and the first lesson) and LATER (the other lessons)
# into OUT (the first frame's set, preloaded with the page: the app takes exactly
# these glyphs from fonts/cjk.otf) and OUT_LATER (the later lessons' Chinese
# ideographs, a second font the page fetches after its first frame).
string(REPLACE "|" "\n" first "${FIRST}")
string(REPLACE "|" "\n" later "${LATER}")
file(WRITE ${OUT}.first "${first}\n")
file(WRITE ${OUT}.later "${later}\n")
execute_process(
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cjk_split.py ${OUT}.tmp ${OUT_LATER}.tmp ${OUT}.first ${OUT}.later
  RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "cjk_text.cmake: could not collect the characters of the lessons and sources")
endif()
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(COPY_FILE ${OUT_LATER}.tmp ${OUT_LATER} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp ${OUT_LATER}.tmp ${OUT}.first ${OUT}.later)
