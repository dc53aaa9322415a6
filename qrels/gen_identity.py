#!/usr/bin/env python3
"""Generates qrels/identity.json from the catalog: every identity key of every tool.

Identity cases are generated, never hand-written (issue 3). Each tool contributes its canonical
path, CLI path, primary CLI path (when different), aliases, a `dws`-prefixed CLI path, a
full-width canonical path and a slash-split form. Available tools must come back first
(exact_guard); unavailable ones must be refused (exact_filtered → abstained), so they are
`expect: abstain` cases. Run from the repository root: python3 qrels/gen_identity.py
"""
import glob, json, unicodedata

def fullwidth(text):
    return ''.join(chr(ord(c) + 0xFEE0) if '!' <= c <= '~' else c for c in text)

cases = []
for path in sorted(glob.glob('catalog/*.json')):
    for product in json.load(open(path, encoding='utf-8'))['products']:
        for tool in sorted(product['tools'], key=lambda t: t['canonical_path']):
            canonical = tool['canonical_path']
            available = tool.get('availability', 'available') == 'available'
            keys = [('canonical', canonical), ('fullwidth', fullwidth(canonical))]
            assert unicodedata.normalize('NFKC', keys[1][1]) == canonical
            if 'cli_path' in tool:
                keys += [('cli', tool['cli_path']), ('dws', 'dws ' + tool['cli_path']),
                         ('slash', tool['cli_path'].replace(' ', '/'))]
            if tool.get('primary_cli_path') not in (None, tool.get('cli_path')):
                keys.append(('primary', tool['primary_cli_path']))
            keys += [('alias%d' % i, alias) for i, alias in enumerate(tool.get('aliases', []))]
            for kind, query in keys:
                case = {'id': f'id-{canonical}-{kind}', 'query': query, 'language': 'english'}
                if available:
                    case['qrels'] = [{'canonical': canonical, 'relevance': 3}]
                else:
                    case['qrels'] = []
                    case['expect'] = 'abstain'
                cases.append(case)
with open('qrels/identity.json', 'w', encoding='utf-8') as out:
    out.write('{"version": "tool-search-qrels.v1", "cases": [\n')
    out.write(',\n'.join(json.dumps(c, ensure_ascii=False) for c in cases))
    out.write('\n]}\n')
print(f'{len(cases)} identity cases')
