// The demo's shape: every .js file under web/demo is at most 500 lines and every function in it
// (declaration, method, arrow function with a block or parenthesised body) at most 120, nested
// functions counted inside the one that holds them. The scanner blanks strings, template
// literals, comments and regular expressions, then matches brackets.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';

const DEMO = path.join(ROOT, 'web', 'demo');
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 120;

/** Every .js file under `dir`, as paths. */
function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return jsFiles(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

// why: after one of these, a '/' starts a regular expression, not a division
const BEFORE_REGEX = new Set([...'(,=:[!&|?{};+-*%<>~^', '']);
const REGEX_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|void|yield|await)$/;

/**
 * `source` with the insides of strings, template literals (their ${} code kept), comments and
 * regular expressions replaced by spaces; newlines kept, so offsets and lines stay the same.
 */
export function blankLiterals(source) {
  const out = source.split('');
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  const templates = []; // brace depth at which each open template's ${ started
  let depth = 0;
  let i = 0;
  const lastCode = () => {
    let k = i - 1;
    while (k >= 0 && /\s/.test(out[k])) k--;
    return k;
  };
  const scanTemplate = () => {
    // from just after a ` or a } closing ${...}: to the closing ` or the next ${
    const start = i;
    while (i < source.length) {
      if (source[i] === '\\') i += 2;
      else if (source[i] === '`') {
        blank(start, i);
        i++;
        return;
      } else if (source[i] === '$' && source[i + 1] === '{') {
        blank(start, i);
        templates.push(depth);
        depth++;
        i += 2;
        return;
      } else i++;
    }
  };
  while (i < source.length) {
    const c = source[i];
    const n = source[i + 1];
    if (c === '/' && n === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && n === '*') {
      const end = source.indexOf('*/', i + 2) + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      const start = ++i;
      while (i < source.length && source[i] !== c) i += source[i] === '\\' ? 2 : 1;
      blank(start, i);
      i++;
    } else if (c === '`') {
      i++;
      scanTemplate();
    } else if (c === '/') {
      const k = lastCode();
      const before = k < 0 ? '' : out[k];
      const word = out.slice(Math.max(0, k - 7), k + 1).join('');
      if (BEFORE_REGEX.has(before) || REGEX_KEYWORDS.test(word)) {
        const start = ++i;
        let inClass = false;
        while (i < source.length && (inClass || source[i] !== '/')) {
          if (source[i] === '\\') i++;
          else if (source[i] === '[') inClass = true;
          else if (source[i] === ']') inClass = false;
          i++;
        }
        blank(start, i);
      }
      i++;
    } else if (c === '{') {
      depth++;
      i++;
    } else if (c === '}') {
      depth--;
      if (templates.length && templates.at(-1) === depth) {
        templates.pop();
        i++;
        scanTemplate();
      } else i++;
    } else i++;
  }
  return out.join('');
}

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return']);

/**
 * The functions of a source file as {name, start, end} (1-based lines, the header's first line
 * to the closing bracket's): declarations, methods and arrow functions with a block or
 * parenthesised body. Nested ones are listed too, each with its whole span.
 */
export function functionSpans(source) {
  const code = blankLiterals(source);
  const lineAt = [];
  let line = 1;
  for (let k = 0; k < code.length; k++) {
    lineAt.push(line);
    if (code[k] === '\n') line++;
  }
  const match = new Map(); // opening bracket offset -> closing offset
  const stack = [];
  for (let k = 0; k < code.length; k++) {
    const c = code[k];
    if (c === '(' || c === '{' || c === '[') stack.push(k);
    else if (c === ')' || c === '}' || c === ']') {
      const open = stack.pop();
      // why: a bracket left unmatched means the blanking misread a literal; say so, not pass
      if (open === undefined || '({['.indexOf(code[open]) !== ')}]'.indexOf(c))
        throw new Error(`unbalanced '${c}' on line ${lineAt[k]}`);
      match.set(open, k);
    }
  }
  if (stack.length) throw new Error(`unclosed '${code[stack[0]]}' on line ${lineAt[stack[0]]}`);
  const closer = new Map([...match].map(([open, close]) => [close, open]));
  const back = (k) => {
    while (k >= 0 && /\s/.test(code[k])) k--;
    return k;
  };
  const spans = [];
  for (const [open, close] of match) {
    if (code[open] === '[') continue;
    const k = back(open - 1);
    let head = -1;
    let name = '';
    if (code[k] === '>' && code[k - 1] === '=') {
      // an arrow function: `(a, b) => {` or `x => (` ; its header is the parameter list
      const p = back(k - 2);
      head = code[p] === ')' ? closer.get(p) : p;
      const before = code.slice(0, head).match(/([\w$#]+)\s*[:=]\s*(?:async\s*)?$/);
      name = before ? before[1] : '(arrow)';
    } else if (code[open] === '{' && code[k] === ')') {
      // a declaration or method: `function f(...) {`, `name(...) {`, `async #f(...) {`
      const paren = closer.get(k);
      const m = code.slice(0, paren).match(/([\w$#]+)\s*$/);
      if (!m || NOT_FUNCTIONS.has(m[1])) continue;
      name = m[1];
      head = paren - m[0].length;
      const fn = code.slice(0, head).match(/function\s*\*?\s*$/);
      if (fn) head -= fn[0].length;
    } else continue;
    spans.push({ name, start: lineAt[head], end: lineAt[close] });
  }
  return spans.sort((a, b) => a.start - b.start);
}

test('the scanner finds a long function, a long arrow and a long method, and ignores literals', () => {
  const body = (n) => Array.from({ length: n }, (_, k) => `  x += ${k}; // }`).join('\n');
  const source = [
    'const re = /[{(]/g;',
    "const s = '}{';",
    'const t = `a ${(() => { return 1; })()} }`;',
    `function long() {\n${body(130)}\n}`,
    `const arrow = async (a) => {\n${body(125)}\n};`,
    `class C {\n  method(a,\n    b) {\n${body(121)}\n  }\n}`,
    `const short = () => ({\n${body(3)}\n});`,
    'if (x) {\n  y();\n}',
  ].join('\n');
  const spans = functionSpans(source);
  const long = spans.filter((s) => s.end - s.start + 1 > MAX_FUNCTION_LINES).map((s) => s.name);
  assert.deepEqual(long, ['long', 'arrow', 'method']);
  assert.ok(spans.some((s) => s.name === 'short'));
  assert.ok(!spans.some((s) => s.name === 'if'));
});

test(`every web/demo file is at most ${MAX_FILE_LINES} lines`, () => {
  const over = [];
  for (const file of jsFiles(DEMO)) {
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    if (lines > MAX_FILE_LINES) over.push(`${path.relative(ROOT, file)}: ${lines} lines`);
  }
  assert.deepEqual(over, []);
});

test(`every function in web/demo is at most ${MAX_FUNCTION_LINES} lines`, () => {
  const over = [];
  for (const file of jsFiles(DEMO)) {
    for (const f of functionSpans(readFileSync(file, 'utf8'))) {
      const lines = f.end - f.start + 1;
      if (lines > MAX_FUNCTION_LINES)
        over.push(`${path.relative(ROOT, file)}:${f.start} ${f.name}: ${lines} lines`);
    }
  }
  assert.deepEqual(over, []);
});

test('index.html preloads every module of the page, and only those', () => {
  const html = readFileSync(path.join(DEMO, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)]
    .map((m) => m[1])
    .filter((href) => !href.startsWith('../'));
  const modules = jsFiles(DEMO)
    .map((f) => path.relative(DEMO, f).split(path.sep).join('/'))
    .filter((f) => f !== 'app/boot.js'); // why: the page's first script, loaded by its own tag
  assert.deepEqual([...preloaded].sort(), modules.sort());
  assert.match(html, /<script type="module" src="app\/boot.js" async><\/script>/);
  assert.match(html, /<script type="module" src="app\/main.js"><\/script>/);
});
