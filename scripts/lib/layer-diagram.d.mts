// Types for layer-diagram.mjs (plain JavaScript so it needs no build).

export type Layers = Readonly<Record<string, readonly string[]>>;
/** Each layer's level: 0 for one that imports no other layer, else one above the highest it may import. */
export function layerLevels(layers: Layers): Map<string, number>;
/** The diagram: one line a level, the top first. */
export function layerDiagram(layers: Layers): string;
