// What a run's clean-up left behind on the share, in one sentence for the
// CLI, the HTML report and the ticket summary: a NAS recycle bin keeps what
// Pipefill removes (emptied to 0 bytes first, so it costs the share nothing
// but entries).

export function recycleBinNote(bin: string): string {
  return `The share's recycle bin (${bin}) kept the files Pipefill removed, each emptied to 0 bytes first; empty the bin, or exclude .pipefill-* from it (Samba: recycle:exclude_dir).`;
}
