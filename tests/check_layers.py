#!/usr/bin/env python3
"""Checks that every #include in src/ points down the layer cake of README.md's
"Where a change belongs" table (core at the bottom, cli at the top; a level marked "beside"
sits next to the one above it and may use core only). Exits 1 naming each upward include.

    python3 tests/check_layers.py [ROOT]    # ROOT defaults to the repository
    python3 tests/check_layers.py --self-test   # plants a violation in a copy; must fail
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
ROW = re.compile(r'^\|\s*([a-z]+)\s*\|\s*`src/([a-z_]+)/`\s*\|(.*)\|\s*$', re.M)


def levels(readme):
    """{folder: (rank, beside)} in table order; a 'beside' row shares the rank above it."""
    out, rank = {}, -1
    for _, folder, holds in ROW.findall(readme):
        beside = 'beside' in holds
        if not beside:
            rank += 1
        out[folder] = (rank, beside)
    return out


def violations(root):
    root = pathlib.Path(root)
    table = levels((root / 'README.md').read_text(encoding='utf-8'))
    if len(table) < 3:
        return ['README.md: no layer table found']
    bottom = min(table, key=lambda f: table[f][0])
    found = []
    for path in sorted((root / 'src').rglob('*')):
        if path.suffix not in ('.h', '.cpp'):
            continue
        here = path.relative_to(root / 'src').parts[0]
        if here not in table:
            found.append(f'src/{here}/: folder missing from README.md\'s layer table')
            continue
        rank, beside = table[here]
        for target in INCLUDE.findall(path.read_text(encoding='utf-8')):
            if target == here or target not in table:
                continue
            ok = target == bottom if beside else table[target][0] < rank
            if not ok:
                found.append(f'{path.relative_to(root)}: includes {target}/ ({here} may not)')
    return found


def self_test():
    repo = pathlib.Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp)
        shutil.copy(repo / 'README.md', copy / 'README.md')
        shutil.copytree(repo / 'src', copy / 'src')
        if violations(copy):
            print('self-test: the clean tree already fails'); return 1
        fake = copy / 'src' / 'ops' / 'fake_violation.h'
        fake.write_text('#pragma once\n#include "model/model.h"\n', encoding='utf-8')
        run = subprocess.run([sys.executable, __file__, str(copy)], capture_output=True, text=True)
        if run.returncode == 0 or 'fake_violation.h' not in run.stdout:
            print('self-test: an upward include (ops -> model) was not reported'); return 1
    print('self-test: an upward include is reported')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    root = argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    found = violations(root)
    for line in found:
        print(line)
    print(f'check_layers: {len(found)} upward include(s)' if found else 'check_layers: ok')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
