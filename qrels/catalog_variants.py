#!/usr/bin/env python3
"""Writes poorer copies of the embedded catalog, to measure how much ranking leans on its richness.

A real catalog may lack what ours has, so the ranking is also measured on copies that lack it
(docs/EVALUATION.md, "How much the ranking leans on the catalog"):

- `no_use_when.json`: every tool's `use_when` removed;
- `no_english.json`: the English gloss removed from every tool's `agent_summary` and
  `description` (a parenthesised English phrase, or an English sentence after the Chinese one),
  and its English `use_when` sentences (those without a Han character);
- `terse.json`: both, and `avoid_when` and `examples` removed too;
- `catalog_words.json`: each tool keeps only the `use_when` it had before ADR 0012, one to three
  sentences in the catalog's own words (ADR 0012 appended nine situations in users' words to
  every tool that got any, so those are the last nine), as a DWS-style catalog would have;
- `imported_like.json`: what `toolsearch catalog import` writes from an MCP or OpenAI tool list:
  no `agent_summary`, `display`, `use_when`, `avoid_when` or `examples`, and `title` = `name`
  (the Chinese description stays);
- `dws_like.json` (session 17): `catalog_words` without the English gloss, as DWS's own Chinese
  catalog is described (`../shared/spec/contract-dws.md`: its published queries hold no English):
  English requests meet only identifiers and what the lexicon and learned pairs bridge.

Canonical paths stay, so every qrels file still applies. Run from the repository root:
    python3 qrels/catalog_variants.py OUT_DIR
    toolsearch eval --catalog OUT_DIR/no_use_when.json --qrels qrels/dev.json
"""
import copy, glob, json, os, re, sys

HAN = '\u4e00-\u9fff'
# A parenthesised phrase with a Latin letter and no Han: "（Start an approval instance）".
PAREN_ENGLISH = re.compile(rf'[（(][^（）(){HAN}]*[A-Za-z][^（）(){HAN}]*[）)]')
# An English tail after the last Chinese sentence end: "…控件。Starts a new approval instance …".
TAIL_ENGLISH = re.compile(rf'(?<=[。！？])\s*[A-Za-z][^{HAN}]*$')


def strip_english(text):
    return TAIL_ENGLISH.sub('', PAREN_ENGLISH.sub('', text))


def no_use_when(tool):
    tool.pop('use_when', None)


def no_english(tool):
    for key in ('agent_summary', 'description'):
        if isinstance(tool.get(key), str):
            tool[key] = strip_english(tool[key])
    # English use_when sentences (ADR 0012) have no Han character at all.
    if isinstance(tool.get('use_when'), list):
        tool['use_when'] = [s for s in tool['use_when'] if re.search(f'[{HAN}]', s)]


def terse(tool):
    no_use_when(tool)
    no_english(tool)
    tool.pop('avoid_when', None)
    tool.pop('examples', None)


def catalog_words(tool):
    situations = tool.get('use_when')
    if isinstance(situations, list) and len(situations) > 9:
        tool['use_when'] = situations[:-9]


def dws_like(tool):
    catalog_words(tool)
    no_english(tool)


def imported_like(tool):
    for key in ('agent_summary', 'display', 'use_when', 'avoid_when', 'examples'):
        tool.pop(key, None)
    tool['title'] = tool['name']


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: python3 qrels/catalog_variants.py OUT_DIR')
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    products = []
    for path in sorted(glob.glob('catalog/*.json')):
        products += json.load(open(path, encoding='utf-8'))['products']
    variants = (
        ('no_use_when', no_use_when),
        ('no_english', no_english),
        ('terse', terse),
        ('imported_like', imported_like),
        ('catalog_words', catalog_words),
        ('dws_like', dws_like),
    )
    for name, strip in variants:
        variant = copy.deepcopy(products)
        for product in variant:
            for tool in product['tools']:
                strip(tool)
        with open(os.path.join(out_dir, f'{name}.json'), 'w', encoding='utf-8') as out:
            json.dump({'version': 'catalog.v1', 'products': variant}, out, ensure_ascii=False)
        print(f'{out_dir}/{name}.json')


if __name__ == '__main__':
    main()
