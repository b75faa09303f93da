// The project's import graph, and the circles in it. ESLint's allow-list
// (eslint.config.js) sees one import at a time; a circle between two files
// of one folder (session.ts and logon.ts once imported each other) needs the
// whole graph. Type-only imports count: they tie the files' meanings together
// even where the emitted code does not.
// Only Node built-ins here.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`, relative specifiers only. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
const SOURCE = /\.(ts|tsx|mts|cts)$/;
const TEST = /\.test\.tsx?$/;

/** Every source file under `dirs` of `root` (tests too, where asked), as paths relative to `root`. */
function sourceFiles(root, dirs, withTests = false) {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'dist') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(name) && (withTests || !TEST.test(name))) found.push(relative(root, path));
    }
  };
  for (const dir of dirs) if (existsSync(join(root, dir))) walk(join(root, dir));
  return found.sort();
}

/** The file a relative specifier names: `./x.js` is `./x.ts` (or .tsx) in the source. */
function resolveSpecifier(root, from, specifier) {
  const target = resolve(root, dirname(from), specifier);
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target.replace(/\.cjs$/, '.cts'), `${target}.ts`];
  const hit = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  return hit ? relative(root, hit) : undefined;
}

/**
 * The import graph of the source under `dirs`: each file and the project
 * files it imports (`withTests`: test files are nodes too).
 */
export function importGraph(root, dirs = ['src', 'app'], { withTests = false } = {}) {
  const graph = new Map();
  for (const file of sourceFiles(root, dirs, withTests)) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = new Set();
    for (const match of text.matchAll(SPECIFIER)) {
      const target = resolveSpecifier(root, file, match[1]);
      if (target && !TEST.test(target)) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Every file `start` depends on, itself included, through `graph`. */
export function dependenciesOf(graph, start) {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const next of graph.get(queue.pop()) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return seen;
}

/**
 * The circles of a graph (Map of node to the nodes it points at): each a
 * strongly connected set of two or more nodes, or one that points at itself,
 * sorted. Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
 */
export function importCycles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next);
    next += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge];
        frame.edge += 1;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next);
          next += 1;
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node), index.get(to)));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const members = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        members.push(member);
      } while (member !== frame.node);
      if (members.length > 1 || edges.includes(frame.node)) cycles.push(members.sort());
    }
  }
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}
