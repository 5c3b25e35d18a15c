# cmake -P: concatenates FILES ('|'-separated) into OUT, the text whose characters
# the CJK font subset must contain (the lessons and the UI's own labels).
string(REPLACE "|" ";" FILES "${FILES}")
set(all "")
foreach(f ${FILES})
  file(READ ${f} text)
  string(APPEND all "${text}\n")
endforeach()
file(WRITE ${OUT}.tmp "${all}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
