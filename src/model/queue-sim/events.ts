// The simulation's events: what happens to whom and when, in a queue that
// runs them in time order (and, at the same instant, in the order they were
// made), so a run is the same for the same seed.

export enum EventKind {
  StepStart,
  JoinRequestAtSender,
  JoinReplyAtReceiver,
  CountStart,
  CountEnd,
  RequestAtSender,
  SegmentAtReceiver,
  AckAtSender,
  SenderTimer,
  RackTimer,
  DelayedAck,
  QueueSample,
}

export interface SimEvent {
  readonly at: number;
  order: number;
  readonly kind: EventKind;
  readonly person: number;
  readonly seq: number;
  readonly generation: number;
  readonly sacks?: readonly number[];
  readonly duplicate?: boolean;
}

/** A binary min-heap on (at, order): events at the same instant run in the order they were made. */
export class EventQueue {
  private readonly heap: SimEvent[] = [];
  private made = 0;
  get size(): number {
    return this.heap.length;
  }
  push(event: Omit<SimEvent, 'order'>): void {
    // The caller's fresh object takes its place in line; no copy per event.
    const item = event as SimEvent;
    item.order = this.made++;
    const heap = this.heap;
    heap.push(item);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(item, heap[parent] as SimEvent)) break;
      heap[index] = heap[parent] as SimEvent;
      index = parent;
    }
    heap[index] = item;
  }
  pop(): SimEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right] as SimEvent, heap[left] as SimEvent) ? right : left;
      if (!before(heap[child] as SimEvent, last)) break;
      heap[index] = heap[child] as SimEvent;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}
