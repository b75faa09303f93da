// The layer diagram in docs/architecture.md, drawn from the allow-list the
// linter enforces (eslint.config.js), so the picture cannot drift from the
// rule. Each line may import only from lines below it.
// Only Node built-ins here (none needed).

/**
 * Each layer's level: 0 for one that imports no other layer, else one above
 * the highest layer it may import. Throws on a layer that (through others)
 * may import itself, or names one the map does not hold.
 */
export function layerLevels(layers) {
  const levels = new Map();
  const visiting = new Set();
  const levelOf = (name) => {
    const known = levels.get(name);
    if (known !== undefined) return known;
    if (!(name in layers)) throw new Error(`The layer ${name} is imported but not listed.`);
    if (visiting.has(name)) throw new Error(`The layer ${name} may import itself through others.`);
    visiting.add(name);
    const level = Math.max(-1, ...layers[name].map(levelOf)) + 1;
    visiting.delete(name);
    levels.set(name, level);
    return level;
  };
  for (const name of Object.keys(layers)) levelOf(name);
  return levels;
}

/** The diagram: one line a level, the top first, each line's layers in the order the map lists them. */
export function layerDiagram(layers) {
  const levels = layerLevels(layers);
  const top = Math.max(...levels.values());
  const lines = [];
  for (let level = top; level >= 0; level -= 1) {
    const names = Object.keys(layers).filter((name) => levels.get(name) === level);
    lines.push(names.map((name) => `src/${name}`).join(', '));
  }
  return lines.join('\n');
}
