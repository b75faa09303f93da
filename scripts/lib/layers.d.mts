// Types for layers.mjs (plain JavaScript: eslint.config.js loads it unbuilt).

/** The folders of src/ below smb: the project layers each may import. */
export const BASE_LAYERS: Readonly<Record<string, readonly string[]>>;
/** Each folder of src/ from smb up, and the project layers it may import. */
export const ALLOWED_LAYERS: Readonly<Record<string, readonly string[]>>;
