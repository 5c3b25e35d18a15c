# cjk_split.py: the characters of the two CJK font subsets (cmake/cjk_text.cmake).
#   python3 cjk_split.py OUT_FIRST OUT_LATER FIRST_LIST LATER_LIST
# FIRST_LIST and LATER_LIST are files naming one source per line.
# - OUT_FIRST: what the first frame may draw -- every character outside ASCII of the
#   FIRST sources (the UI's and the demos' code, lessons/index.txt, the first lesson),
#   and of the LATER lessons everything but the Chinese ideographs of their `.zh`
#   fields (so English never needs the later set, nor does any title).
# - OUT_LATER: the later lessons' Chinese ideographs that OUT_FIRST lacks.
# Each file holds each character once, in code point order.
import sys

out_first, out_later, first_list, later_list = sys.argv[1:5]


def names(path):
    with open(path, encoding='utf-8') as f:
        return [line.strip() for line in f if line.strip()]


def ideograph(c):
    o = ord(c)
    return 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF


first, later = set(), set()
for path in names(first_list):
    with open(path, encoding='utf-8') as f:
        first |= {c for c in f.read() if ord(c) > 127}
for path in names(later_list):
    key = ''
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line[:1] not in ('', ' ', '\t', '\n', '#') and ':' in line:
                key = line.split(':', 1)[0].strip()  # a field; indented lines continue it
            zh_body = key.endswith('.zh') and not key.startswith('title')
            for c in line:
                if ord(c) <= 127:
                    continue
                (later if zh_body and ideograph(c) else first).add(c)
later -= first
for path, chars in ((out_first, first), (out_later, later)):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(''.join(sorted(chars)) + '\n')
