// A copy with a fixed number of requests in flight is a closed queueing
// network: each request visits the data's sender (read the file, protect the
// message), then its receiver (check it, hand the bytes on), and its slot is
// refilled as soon as it completes. Where the CPU at the two ends paces a copy
// (a LAN, a loopback share), how much of the two ends' work overlaps depends
// on that number: one request in flight leaves every pass in series; a deep
// pipeline keeps both ends busy and only the slower one counts.
//
// Exact mean value analysis (Reiser and Lavenberg, "Mean-Value Analysis of
// Closed Multichain Queuing Networks", JACM 27(2), 1980) gives the time per
// request for any number in flight. It takes each station's service time to
// vary as an exponential one does; work on a CPU that the kernel, the other
// end and the rest of the machine share is far from clockwork, and the lab's
// signed loopback reads (two 4 MiB requests in flight, AES-CMAC at both ends)
// took 1.2 to 1.6 passes of the crypto, where clockwork service would give
// one pass and strict series two. One request in flight and a deep pipeline
// come out the same under either assumption.

const MAX_REQUESTS_SOLVED = 4096;

/**
 * Mean time between request completions with `inFlight` requests circulating
 * over stations whose per-request service demands are `demandsSeconds`.
 */
export function closedPipelineSecondsPerRequest(demandsSeconds: readonly number[], inFlight: number): number {
  if (!(Number.isInteger(inFlight) && inFlight >= 1)) throw new RangeError(`inFlight must be a whole number of requests, not ${inFlight}`);
  if (demandsSeconds.length === 0 || demandsSeconds.some((demand) => !(demand >= 0 && Number.isFinite(demand)))) {
    throw new RangeError('every station needs a finite, non-negative demand');
  }
  if (demandsSeconds.every((demand) => demand === 0)) return 0;
  let queueLengths = demandsSeconds.map(() => 0);
  let secondsPerRequest = 0;
  // Past a few thousand requests the answer is the slowest station's demand to many digits; no pipeline is deeper.
  for (let requests = 1; requests <= Math.min(inFlight, MAX_REQUESTS_SOLVED); requests++) {
    const residence = demandsSeconds.map((demand, station) => demand * (1 + (queueLengths[station] ?? 0)));
    const cycle = residence.reduce((sum, seconds) => sum + seconds, 0);
    const throughput = requests / cycle;
    queueLengths = residence.map((seconds) => throughput * seconds);
    secondsPerRequest = 1 / throughput;
  }
  return secondsPerRequest;
}
