// The kernel's own round-trip time for a TCP connection (Linux's TCP_INFO):
// tcpi_rtt, the smoothed RTT, and tcpi_min_rtt, the least it has seen, in
// microseconds. Why: the probe timed its TCP handshakes in the event loop,
// and on a busy machine that clock runs late (a 60 ms lab link read 82.5 ms
// beside a busy core, issue 48); the kernel timestamps the SYN and its
// SYN-ACK in its own softirq, whatever user space is doing. For a connection
// just established, both are the handshake's own sample.

#include <napi.h>

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace pipefill {

// tcpRoundTrip(fd) -> { rttUs, minRttUs, bytesSent?, bytesRetrans?, inFlightBytes?, deliveryBytesPerSecond? }
// | undefined (not a TCP socket, or the kernel says nothing yet). The byte counts (Linux 4.19 and later) let
// a copy weigh each of its losses against the round trip when it came (src/model/loss-split.ts): cheap
// enough to ask every few ms, where `ss` costs a process each time. What is in flight and the delivery rate
// (Linux 4.9 and later) say whether the copy had more out than the path holds, which a round trip
// lengthened by a delayed ACK cannot fake.
Napi::Value TcpRoundTrip(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "tcpRoundTrip(fd) takes a socket's descriptor").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const int fd = info[0].As<Napi::Number>().Int32Value();
  struct tcp_info tcp;
  std::memset(&tcp, 0, sizeof tcp);
  socklen_t length = sizeof tcp;
  if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &tcp, &length) != 0) return env.Undefined();
  // An older kernel fills less of the structure: tcpi_min_rtt came with Linux 4.6.
  const bool hasMin = length >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof tcp.tcpi_min_rtt;
  if (tcp.tcpi_rtt == 0) return env.Undefined();
  Napi::Object result = Napi::Object::New(env);
  result.Set("rttUs", Napi::Number::New(env, tcp.tcpi_rtt));
  result.Set("minRttUs", Napi::Number::New(env, hasMin && tcp.tcpi_min_rtt != 0 && tcp.tcpi_min_rtt != ~0U ? tcp.tcpi_min_rtt : tcp.tcpi_rtt));
  if (length >= offsetof(struct tcp_info, tcpi_bytes_retrans) + sizeof tcp.tcpi_bytes_retrans) {
    // Doubles hold them exactly up to 2^53 bytes (8 PiB), beyond any connection's life.
    result.Set("bytesSent", Napi::Number::New(env, static_cast<double>(tcp.tcpi_bytes_sent)));
    result.Set("bytesRetrans", Napi::Number::New(env, static_cast<double>(tcp.tcpi_bytes_retrans)));
  }
  if (length >= offsetof(struct tcp_info, tcpi_delivery_rate) + sizeof tcp.tcpi_delivery_rate && tcp.tcpi_snd_mss > 0) {
    // The kernel's own count of packets in flight (tcp_packets_in_flight): those not yet acknowledged, less
    // those the peer holds out of order (SACKed) or the sender takes as lost, plus those sent again. Counting
    // SACKed data as in flight would show twice the window during every repair, exactly when losses come.
    const double held = static_cast<double>(tcp.tcpi_sacked) + static_cast<double>(tcp.tcpi_lost);
    const double packets = static_cast<double>(tcp.tcpi_unacked) + static_cast<double>(tcp.tcpi_retrans) - held;
    result.Set("inFlightBytes", Napi::Number::New(env, (packets > 0 ? packets : 0) * tcp.tcpi_snd_mss));
    result.Set("deliveryBytesPerSecond", Napi::Number::New(env, static_cast<double>(tcp.tcpi_delivery_rate)));
  }
  return result;
}

}  // namespace pipefill
