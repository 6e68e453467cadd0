#!/usr/bin/env node
// Fails when our own modules import each other in a cycle (type-only imports included:
// a cycle in types is still a knot in the design).
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const folders = ['protocol', 'pairing', 'common', 'host', 'remote', 'test', 'bench'];
// Relative specifiers, and the package's own `#name` imports (package.json "imports").
const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"]([.#][^'"]+)['"]|import\(\s*['"]([.#][^'"]+)['"]\s*\)/g;
const packageImports = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).imports ?? {};

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveImport(from, specifier) {
  const mapped = specifier.startsWith('#') ? packageImports[specifier] : undefined;
  const base = mapped === undefined ? resolve(dirname(from), specifier) : resolve(root, mapped);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base,
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

const graph = new Map();
for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
  const text = readFileSync(file, 'utf8');
  const targets = [];
  for (const match of text.matchAll(importPattern)) {
    const target = resolveImport(file, match[1] ?? match[2]);
    if (target) targets.push(target);
  }
  graph.set(file, targets);
}

const state = new Map(); // 1 = on the stack, 2 = done
const stack = [];
const cycles = [];
function visit(file) {
  state.set(file, 1);
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === 1) cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, 2);
}
for (const file of graph.keys()) if (!state.has(file)) visit(file);

if (cycles.length > 0) {
  for (const cycle of cycles) {
    console.error('import cycle: ' + cycle.map((file) => relative(root, file)).join(' -> '));
  }
  process.exit(1);
}
console.log(`no import cycles among ${graph.size} modules`);
