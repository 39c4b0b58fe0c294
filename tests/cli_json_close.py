#!/usr/bin/env python3
"""Whether two JSON files hold the same values, floats within a tolerance (the --attention files
of build/heed and npx heed: the native kernels and WebAssembly round differently). Prints the
first difference and exits 1.

    python3 tests/cli_json_close.py A.json B.json [TOL]    # TOL defaults to 1e-4
"""
import json
import sys


def first_difference(a, b, tol, at='$'):
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(a) != sorted(b):
            return f'{at}: keys {sorted(a)} != {sorted(b)}'
        for k in a:
            found = first_difference(a[k], b[k], tol, f'{at}.{k}')
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f'{at}: length {len(a)} != {len(b)}'
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, tol, f'{at}[{i}]')
            if found:
                return found
        return None
    if isinstance(a, float) or isinstance(b, float):
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
        return None if numbers and abs(a - b) <= tol else f'{at}: {a!r} != {b!r}'
    return None if type(a) is type(b) and a == b else f'{at}: {a!r} != {b!r}'


def main(argv):
    with open(argv[1], encoding='utf-8') as fa, open(argv[2], encoding='utf-8') as fb:
        found = first_difference(json.load(fa), json.load(fb), float(argv[3]) if len(argv) > 3 else 1e-4)
    if found:
        print(f'{argv[1]} vs {argv[2]}: {found}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
