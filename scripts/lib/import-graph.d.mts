// Types for import-graph.mjs (plain JavaScript so it needs no build).

/** The import graph of the source under `dirs` of `root`: each file and the project files it imports. */
export function importGraph(root: string, dirs?: readonly string[], options?: { withTests?: boolean }): Map<string, string[]>;
/** Every file `start` depends on, itself included, through `graph`. */
export function dependenciesOf(graph: ReadonlyMap<string, readonly string[]>, start: string): Set<string>;
/** The circles of a graph: strongly connected sets of two or more nodes, or a node that points at itself. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][];
