// pipefill-wanem: a WAN emulator in user space, between two TUN devices that
// live in two network namespaces ("branch" and "datacenter"). Real kernel TCP
// on either side then sees a real long fat pipe: a bottleneck rate, a one-way
// delay each way, a drop-tail queue, random loss and optional jitter.
//
// Each direction is a FIFO of packets that carry a release time:
//   start   = max(arrival, time the serialiser is next free)
//   done    = start + bytes * 8 / rate            (serialisation)
//   release = done + one-way delay (+ jitter, never reordering)
// A packet that would push the bytes still waiting to be serialised past the
// queue limit is dropped (drop-tail), as a router's buffer would.
//
// Usage:
//   pipefill-wanem --a-netns /run/netns/X --a-dev tun0 --b-netns /run/netns/Y --b-dev tun0
//                  --rate-bps N --delay-us N [--queue-bytes N] [--loss P [--loss-burst B]] [--jitter-us N]
//                  [--seed N] [--stats FILE] [--mtu N] [--icmp 0|1]
// --loss-burst B: random loss comes in runs of B packets on average (a Gilbert
// model: a lost packet's successor is lost too with probability 1 - 1/B, and a
// run starts with the probability that keeps the average loss P), as a fading
// Wi-Fi or DSL hop loses them. A run lasts while packets keep coming: one that
// arrives more than FADE_NS after the run's last loss finds the hop clear (a
// fade is a stretch of time, so TCP's retransmission a fifth of a second later
// meets a clear hop, not the same fade six times over, which would stall a
// quiet connection for seconds of backed-off timeouts). 1, the default: each
// packet on its own.
// SIGUSR1 writes counters as JSON to the stats file; SIGTERM writes them and exits.
// SIGUSR2 re-reads the control file (--control): `name=value` lines that change
// delay-us, loss, rate-bps, queue-bytes, blackhole (1 drops every packet), mtu or
// icmp while the link runs, for tests of a failing link; the stats file then
// shows them.
// --mtu N: the emulated hop carries packets of N bytes at most. A larger one is
// dropped; with --icmp 1 the hop answers an IPv4 packet that forbids
// fragmenting with ICMP "fragmentation needed" (RFC 1191) naming N, as a
// router does, and with --icmp 0 (a firewall that drops ICMP) says nothing:
// a path MTU black hole.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SLOT_BYTES 1600          /* TUN MTU 1500, offloads off: no packet is larger */
#define SLOTS 32768              /* per direction: > 1 BDP queue plus the delay line at 1 Gb/s, 200 ms */
#define READS_PER_WAKE 64        /* packets read per direction per wake-up, for fairness */

typedef struct {
  uint64_t release_ns;
  uint16_t length;
  uint8_t data[SLOT_BYTES];
} slot_t;

typedef struct {
  const char *name;
  int in_fd, out_fd;
  slot_t *slots;
  uint32_t head, count;
  uint64_t link_free_ns, last_release_ns;
  uint64_t packets_in, bytes_in, packets_out, bytes_out;
  uint64_t drops_queue, drops_loss, drops_full, peak_backlog_bytes;
  uint64_t drops_mtu, icmp_sent;
  /* Runs of random loss started, and whether the last packet began or continued one (--loss-burst). */
  uint64_t loss_bursts;
  int in_burst;
  uint64_t last_lost_ns;
  /* The backlog each arriving packet found, summed: over an interval, their mean is the queue's delay as traffic meets it. */
  uint64_t backlog_seen_sum_bytes;
} direction_t;

static double rate_bps;
static uint64_t delay_ns, jitter_ns, queue_limit_bytes;
static double loss_rate;
static double loss_burst = 1; /* mean run of lost packets */
/* The longest a fade lasts past its last loss: ten milliseconds, many back-to-back packets at any lab rate. */
#define FADE_NS 10000000ULL
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static const char *stats_path;
static volatile sig_atomic_t want_stats, want_exit, want_control;
static const char *control_path;
static int blackhole;
static uint64_t mtu_bytes; /* 0: no limit beyond the slots' */
static int icmp_deliver = 1;
static uint64_t control_applied;
static direction_t dirs[2];

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: reproducible loss and jitter for a given --seed. */
static double random_unit(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static void die(const char *what) {
  fprintf(stderr, "pipefill-wanem: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* Attaches to the persistent TUN device `dev` inside the namespace at `netns_path`. */
static int open_tun(const char *netns_path, const char *dev) {
  int ns = open(netns_path, O_RDONLY | O_CLOEXEC);
  if (ns < 0) die(netns_path);
  if (setns(ns, CLONE_NEWNET) < 0) die("setns");
  close(ns);
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) die("/dev/net/tun");
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) die("TUNSETIFF");
  /* Always set offloads explicitly: a persistent device can keep a stale
     checksum-offload setting that silently breaks TCP. */
  if (ioctl(fd, TUNSETOFFLOAD, 0) < 0) die("TUNSETOFFLOAD");
  return fd;
}

static uint64_t backlog_bytes(const direction_t *d, uint64_t now) {
  if (d->link_free_ns <= now) return 0;
  return (uint64_t)((double)(d->link_free_ns - now) * rate_bps / 8e9);
}

/* The one's-complement sum of RFC 1071 over `length` bytes. */
static uint16_t internet_checksum(const uint8_t *bytes, size_t length) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < length; i += 2) sum += (uint32_t)(bytes[i] << 8 | bytes[i + 1]);
  if (length & 1) sum += (uint32_t)(bytes[length - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

/* Answers `packet`, too large for the hop, with ICMP "fragmentation needed"
   (type 3, code 4, the next hop's MTU: RFC 792, RFC 1191) back into the
   sender's namespace, from the address it was sent to. IPv4 that forbids
   fragmenting only (Linux's TCP always sets DF); anything else is dropped. */
static void refuse_too_big(direction_t *d, const uint8_t *packet, size_t length) {
  if (length < 28 || (packet[0] >> 4) != 4 || !(packet[6] & 0x40)) return;
  size_t quoted_ip = (size_t)(packet[0] & 0x0f) * 4;
  if (quoted_ip < 20 || quoted_ip + 8 > length) return;
  size_t quoted = quoted_ip + 8, total = 20 + 8 + quoted;
  uint8_t reply[20 + 8 + 60 + 8];
  memset(reply, 0, sizeof reply);
  reply[0] = 0x45;
  reply[2] = (uint8_t)(total >> 8);
  reply[3] = (uint8_t)total;
  reply[8] = 64; /* TTL */
  reply[9] = 1;  /* ICMP */
  memcpy(reply + 12, packet + 16, 4); /* from the address the packet was for */
  memcpy(reply + 16, packet + 12, 4); /* to its sender */
  uint16_t ip_sum = internet_checksum(reply, 20);
  reply[10] = (uint8_t)(ip_sum >> 8);
  reply[11] = (uint8_t)ip_sum;
  uint8_t *icmp = reply + 20;
  icmp[0] = 3;
  icmp[1] = 4;
  icmp[6] = (uint8_t)(mtu_bytes >> 8);
  icmp[7] = (uint8_t)mtu_bytes;
  memcpy(icmp + 8, packet, quoted);
  uint16_t icmp_sum = internet_checksum(icmp, 8 + quoted);
  icmp[2] = (uint8_t)(icmp_sum >> 8);
  icmp[3] = (uint8_t)icmp_sum;
  if (write(d->in_fd, reply, total) == (ssize_t)total) d->icmp_sent++;
}

/* Whether the path loses this packet at random. In a run, the run goes on with
   probability 1 - 1/B; out of one, a run starts with probability
   P / (B (1 - P)): runs of B on average, a share P of packets lost, where
   packets come closer than FADE_NS apart. */
static int randomly_lost(direction_t *d, uint64_t now) {
  if (loss_rate <= 0) {
    d->in_burst = 0;
    return 0;
  }
  if (loss_burst <= 1) return random_unit() < loss_rate;
  if (d->in_burst && now - d->last_lost_ns > FADE_NS) d->in_burst = 0;
  if (!d->in_burst && random_unit() < loss_rate / (loss_burst * (1 - loss_rate))) {
    d->in_burst = 1;
    d->loss_bursts++;
  } else if (!d->in_burst) {
    return 0;
  }
  if (random_unit() < 1 / loss_burst) d->in_burst = 0;
  d->last_lost_ns = now;
  return 1;
}

static void arrive(direction_t *d, const uint8_t *packet, size_t length, uint64_t now) {
  d->packets_in++;
  d->bytes_in += length;
  if (mtu_bytes && length > mtu_bytes) {
    d->drops_mtu++;
    if (icmp_deliver) refuse_too_big(d, packet, length);
    return;
  }
  if (blackhole || randomly_lost(d, now)) {
    d->drops_loss++;
    return;
  }
  uint64_t backlog = backlog_bytes(d, now);
  d->backlog_seen_sum_bytes += backlog;
  if (backlog + length > queue_limit_bytes) {
    d->drops_queue++;
    return;
  }
  if (d->count == SLOTS || length > SLOT_BYTES) {
    d->drops_full++;
    return;
  }
  if (backlog + length > d->peak_backlog_bytes) d->peak_backlog_bytes = backlog + length;
  uint64_t start = d->link_free_ns > now ? d->link_free_ns : now;
  d->link_free_ns = start + (uint64_t)((double)length * 8e9 / rate_bps);
  uint64_t release = d->link_free_ns + delay_ns;
  if (jitter_ns) release += (uint64_t)(random_unit() * (double)jitter_ns);
  if (release < d->last_release_ns) release = d->last_release_ns; /* jitter never reorders */
  d->last_release_ns = release;
  slot_t *slot = &d->slots[(d->head + d->count) % SLOTS];
  slot->release_ns = release;
  slot->length = (uint16_t)length;
  memcpy(slot->data, packet, length);
  d->count++;
}

/* Sends every packet whose time has come; returns the next release time, or 0. */
static uint64_t depart(direction_t *d, uint64_t now) {
  while (d->count > 0) {
    slot_t *slot = &d->slots[d->head];
    if (slot->release_ns > now) return slot->release_ns;
    if (write(d->out_fd, slot->data, slot->length) == (ssize_t)slot->length) {
      d->packets_out++;
      d->bytes_out += slot->length;
    } else {
      d->drops_full++;
    }
    d->head = (d->head + 1) % SLOTS;
    d->count--;
  }
  return 0;
}

static void write_stats(void) {
  if (!stats_path) return;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", stats_path);
  /* A fresh file, 0600, never through a link planted under the .tmp name (the folder is root's own, 0700, but be sure). */
  unlink(tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    return;
  }
  fprintf(f,
          "{\"rateBps\": %.0f, \"delayUs\": %llu, \"queueBytes\": %llu, \"loss\": %.9f, \"lossBurst\": %.3f, \"jitterUs\": %llu, \"blackhole\": %d, \"mtu\": %llu, \"icmp\": %d, "
          "\"controlApplied\": %llu, \"directions\": [",
          rate_bps, (unsigned long long)(delay_ns / 1000), (unsigned long long)queue_limit_bytes, loss_rate, loss_burst, (unsigned long long)(jitter_ns / 1000), blackhole,
          (unsigned long long)mtu_bytes, icmp_deliver, (unsigned long long)control_applied);
  for (int i = 0; i < 2; i++) {
    direction_t *d = &dirs[i];
    fprintf(f, "%s{\"name\": \"%s\", \"packetsIn\": %llu, \"bytesIn\": %llu, \"packetsOut\": %llu, \"bytesOut\": %llu, \"dropsQueue\": %llu, \"dropsLoss\": %llu, \"dropsFull\": %llu, \"peakBacklogBytes\": %llu, \"dropsMtu\": %llu, \"icmpSent\": %llu, \"backlogSeenSumBytes\": %llu, \"lossBursts\": %llu}",
            i ? ", " : "", d->name, (unsigned long long)d->packets_in, (unsigned long long)d->bytes_in, (unsigned long long)d->packets_out,
            (unsigned long long)d->bytes_out, (unsigned long long)d->drops_queue, (unsigned long long)d->drops_loss,
            (unsigned long long)d->drops_full, (unsigned long long)d->peak_backlog_bytes, (unsigned long long)d->drops_mtu, (unsigned long long)d->icmp_sent,
            (unsigned long long)d->backlog_seen_sum_bytes, (unsigned long long)d->loss_bursts);
  }
  fprintf(f, "]}\n");
  fclose(f);
  rename(tmp, stats_path);
}

static void on_signal(int sig) {
  if (sig == SIGUSR1) want_stats = 1;
  else if (sig == SIGUSR2) want_control = 1;
  else want_exit = 1;
}

/* Applies the control file's `name=value` lines; values out of range are ignored (the stats show what holds). */
static void apply_control(void) {
  if (!control_path) return;
  int fd = open(control_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  char text[1024];
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return;
  text[got] = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char *eq = strchr(line, '=');
    if (!eq) continue;
    *eq = 0;
    const char *value = eq + 1;
    if (strcmp(line, "delay-us") == 0) {
      unsigned long long us = strtoull(value, NULL, 10);
      if (us <= 5000000ULL) delay_ns = us * 1000ULL;
    } else if (strcmp(line, "loss") == 0) {
      double loss = strtod(value, NULL);
      if (loss >= 0 && loss < 1) loss_rate = loss;
    } else if (strcmp(line, "loss-burst") == 0) {
      double burst = strtod(value, NULL);
      if (burst >= 1 && burst <= 1000) loss_burst = burst;
    } else if (strcmp(line, "rate-bps") == 0) {
      double rate = strtod(value, NULL);
      if (rate >= 1000) rate_bps = rate;
    } else if (strcmp(line, "queue-bytes") == 0) {
      unsigned long long bytes = strtoull(value, NULL, 10);
      if (bytes >= 1600) queue_limit_bytes = bytes;
    } else if (strcmp(line, "blackhole") == 0) {
      blackhole = strcmp(value, "1") == 0;
    } else if (strcmp(line, "mtu") == 0) {
      unsigned long long bytes = strtoull(value, NULL, 10);
      if (bytes == 0 || (bytes >= 576 && bytes <= SLOT_BYTES)) mtu_bytes = bytes;
    } else if (strcmp(line, "icmp") == 0) {
      icmp_deliver = strcmp(value, "0") != 0;
    }
  }
  control_applied++;
}

static const char *arg(int argc, char **argv, const char *name, const char *fallback) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  if (!fallback) {
    fprintf(stderr, "pipefill-wanem: missing %s\n", name);
    exit(2);
  }
  return fallback;
}

int main(int argc, char **argv) {
  const char *a_ns = arg(argc, argv, "--a-netns", NULL), *a_dev = arg(argc, argv, "--a-dev", NULL);
  const char *b_ns = arg(argc, argv, "--b-netns", NULL), *b_dev = arg(argc, argv, "--b-dev", NULL);
  rate_bps = strtod(arg(argc, argv, "--rate-bps", NULL), NULL);
  delay_ns = strtoull(arg(argc, argv, "--delay-us", NULL), NULL, 10) * 1000ULL;
  jitter_ns = strtoull(arg(argc, argv, "--jitter-us", "0"), NULL, 10) * 1000ULL;
  loss_rate = strtod(arg(argc, argv, "--loss", "0"), NULL);
  loss_burst = strtod(arg(argc, argv, "--loss-burst", "1"), NULL);
  rng_state ^= strtoull(arg(argc, argv, "--seed", "1"), NULL, 10) * 0x100000001b3ULL;
  stats_path = arg(argc, argv, "--stats", "");
  if (!*stats_path) stats_path = NULL;
  mtu_bytes = strtoull(arg(argc, argv, "--mtu", "0"), NULL, 10);
  icmp_deliver = strcmp(arg(argc, argv, "--icmp", "1"), "0") != 0;
  if (mtu_bytes && (mtu_bytes < 576 || mtu_bytes > SLOT_BYTES)) {
    fprintf(stderr, "pipefill-wanem: --mtu is 576 to %d bytes\n", SLOT_BYTES);
    return 2;
  }
  control_path = arg(argc, argv, "--control", "");
  if (!*control_path) control_path = NULL;
  /* Default queue: one bandwidth-delay product of the round trip. */
  uint64_t bdp = (uint64_t)(rate_bps / 8 * (double)(2 * delay_ns) / 1e9);
  queue_limit_bytes = strtoull(arg(argc, argv, "--queue-bytes", "0"), NULL, 10);
  if (!queue_limit_bytes) queue_limit_bytes = bdp > 64 * 1024 ? bdp : 64 * 1024;
  if (rate_bps < 1000 || loss_rate < 0 || loss_rate >= 1 || !(loss_burst >= 1 && loss_burst <= 1000)) {
    fprintf(stderr, "pipefill-wanem: rate must be >= 1000 b/s, loss in [0, 1) and loss-burst 1 to 1000 packets\n");
    return 2;
  }

  prctl(PR_SET_TIMERSLACK, 1UL); /* wake on time, not up to 50 us late */
  /* A router forwards on time whatever else the machine does. Descheduled
     by other work, the forwarder would find a burst waiting in the TUN device
     and take it in at one instant: a shallow queue would then drop what a
     real router, receiving the same packets spread out, would have kept.
     Real-time priority (it sleeps in ppoll between packets, and the kernel's
     RT throttling keeps 5% of each core for others); best effort. */
  struct sched_param realtime = {.sched_priority = 10};
  if (sched_setscheduler(0, SCHED_FIFO, &realtime) != 0) fprintf(stderr, "pipefill-wanem: running without real-time priority (%s)\n", strerror(errno));
  int a = open_tun(a_ns, a_dev);
  int b = open_tun(b_ns, b_dev);
  dirs[0] = (direction_t){.name = "a-to-b", .in_fd = a, .out_fd = b};
  dirs[1] = (direction_t){.name = "b-to-a", .in_fd = b, .out_fd = a};
  for (int i = 0; i < 2; i++) {
    dirs[i].slots = malloc(sizeof(slot_t) * SLOTS); /* pages are touched only as packets queue */
    if (!dirs[i].slots) die("malloc");
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigset_t blocked, during_poll;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  sigaddset(&blocked, SIGUSR2);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigprocmask(SIG_BLOCK, &blocked, &during_poll); /* signals arrive only inside ppoll */
  write_stats();

  uint8_t packet[65536];
  struct pollfd fds[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
  while (!want_exit) {
    uint64_t now = now_ns(), next = 0;
    for (int i = 0; i < 2; i++) {
      uint64_t r = depart(&dirs[i], now);
      if (r && (!next || r < next)) next = r;
    }
    struct timespec timeout, *tp = NULL;
    if (next) {
      uint64_t wait = next > now ? next - now : 0;
      timeout.tv_sec = (time_t)(wait / 1000000000ULL);
      timeout.tv_nsec = (long)(wait % 1000000000ULL);
      tp = &timeout;
    }
    int ready = ppoll(fds, 2, tp, &during_poll);
    if (ready < 0 && errno != EINTR) die("ppoll");
    if (want_control) {
      want_control = 0;
      apply_control();
      write_stats();
    }
    if (want_stats) {
      want_stats = 0;
      write_stats();
    }
    if (ready <= 0) continue;
    now = now_ns();
    for (int i = 0; i < 2; i++) {
      if (!(fds[i].revents & POLLIN)) continue;
      for (int n = 0; n < READS_PER_WAKE; n++) {
        ssize_t got = read(dirs[i].in_fd, packet, sizeof packet);
        if (got <= 0) break;
        arrive(&dirs[i], packet, (size_t)got, now);
      }
    }
  }
  write_stats();
  return 0;
}
