// Types for node-runtime.mjs (plain JavaScript: it runs before node_modules exists).

export const MINIMUM_NODE: readonly number[];
export const PINNED_NODE: string;
export function nodeIsRecentEnough(version: string): boolean;
export function nodePackageFor(platform: string, arch: string): { readonly name: string; readonly executable: string } | undefined;
export function ensureSupportedNode(): void;
