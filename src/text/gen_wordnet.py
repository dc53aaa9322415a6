#!/usr/bin/env python3
"""Generates src/text/wordnet_words.txt from WordNet 3.0 (Debian package wordnet-base,
/usr/share/wordnet): one line per English word, `word related related ...`, sorted by byte
order. Licence: src/text/WORDNET-LICENSE. Shipped table: `gen_wordnet.py 2` (docs/adr/0014).

Related words of a lemma: the single-word lemmas of its first SENSES synsets per part of speech
(the order of index.*, which is frequency order), and the derivationally related forms ("+"
pointers) of the lemma in those synsets. Only lower-case ASCII letters, 3 or more of them. An
irregular inflection of WordNet's exception lists (children, better) gets its base and the
base's related words.

usage: gen_wordnet.py SENSES [WORDNET_DIR] > wordnet_words.txt
"""
import os, re, sys

SENSES = int(sys.argv[1])
WN = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/wordnet"
POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
WORD = re.compile(r"^[a-z]{3,}$")

def load_data(name):
    """offset -> (words, pointers) for one data file."""
    out = {}
    with open(os.path.join(WN, "data." + name), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            head = line.split(" | ")[0].split()
            offset = head[0]
            w_cnt = int(head[3], 16)
            words = [head[4 + 2 * i].lower() for i in range(w_cnt)]
            at = 4 + 2 * w_cnt
            p_cnt = int(head[at]); at += 1
            ptrs = []
            for _ in range(p_cnt):
                sym, off, pos, st = head[at:at + 4]; at += 4
                ptrs.append((sym, off, pos, int(st[:2], 16), int(st[2:], 16)))
            out[offset] = (words, ptrs)
    return out

def add(rel, word, owner):
    """Appends `word` (a WordNet lemma, without its adjective marker) to `rel`, the related
    words of `owner`, if it is a plain word, not `owner` itself, and not there yet."""
    word = re.sub(r"\(.*\)$", "", word)
    if WORD.match(word) and word != owner and word not in rel:
        rel.append(word)

data = {POS[n]: load_data(n) for n in POS}
data["s"] = data["a"]
related = {}
for name, pos in POS.items():
    with open(os.path.join(WN, "index." + name), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            lemma = parts[0]
            if not WORD.match(lemma):
                continue
            synset_cnt = int(parts[2])
            offsets = parts[-synset_cnt:]
            rel = related.setdefault(lemma, [])
            for off in offsets[:SENSES]:
                words, ptrs = data[pos][off]
                for w in words:
                    add(rel, w, lemma)
                me = words.index(lemma) + 1 if lemma in words else 0
                for sym, toff, tpos, src, tgt in ptrs:
                    if sym == "+" and (src == me or src == 0) and me:
                        twords = data[tpos][toff][0]
                        if tgt and tgt <= len(twords):
                            add(rel, twords[tgt - 1], lemma)
# Irregular inflections (WordNet's exception lists): the inflected form gets its base's words
# and the base itself.
for name in POS:
    with open(os.path.join(WN, name + ".exc"), encoding="latin-1") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2 or not WORD.match(parts[0]):
                continue
            form, bases = parts[0], parts[1:]
            rel = related.setdefault(form, [])
            for base in bases:
                for w in [base] + related.get(base, []):
                    add(rel, w, form)
out = sys.stdout
for lemma in sorted(related):
    if related[lemma]:
        out.write(lemma + " " + " ".join(related[lemma]) + "\n")
