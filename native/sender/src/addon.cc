// Pipefill's socket sender: writes one TCP connection's SMB requests on a
// thread of its own, and reads a WRITE's data from the local source file
// itself, a cache-sized slice at a time, sending each slice while it is still
// in the CPU cache. A copy test with no local file sends Pipefill's test
// pattern (src/copy/pattern.ts: the AES-128-CTR keystream of the file's key)
// the same way: the thread generates each slice in place and sends it.
//
// Why: on a fast path the client's CPU, not the wire, sets the pace of a
// write test. Through Node's net.Socket a write from a local file costs a
// read into a pooled 4 MiB buffer on libuv's thread pool, a promise, and a
// socket write of data long gone from the cache, with wake-ups between them
// (perf on a 256 MiB loopback put, samples during the transfer: Pipefill
// ~840 against smbclient's ~590 for its read-then-writev). Here one thread
// reads 512 KiB and sends it at once: that thread then took ~480 (the main
// thread ~140 more, mostly V8 compiling in a 0.2 s run).
// sendfile(2) was tried first: it saves this process both copies, but on
// loopback smbd then copies from cold page-cache pages, and the run gained
// less than reading in slices does (A/B medians of 11 on this 2-core
// machine, against smbclient put:
// Node's socket 1.07x, sendfile 1.10x, 128 KiB slices 1.04x, 256 KiB 1.12x,
// 512 KiB 1.17x, 1 MiB 1.13x; a later A/B of 21 rounds: 1.13x against
// Node's socket 1.09x).
//
// The JavaScript side keeps every buffer of a job alive until the job's
// completion arrives, and routes all writes of the connection through one
// sender, so bytes reach the socket in the order they were handed over.
// The sender writes through its own dup() of the socket, so Node closing its
// descriptor never leaves this thread writing to a reused number; file
// descriptors are dup()ed per job for the same reason (a cancelled copy
// closes its source file while a send may still be under way).
//
// Why the pattern is made here (256 MiB loopback writes through bench:smb's
// worker, medians of alternating rounds on this 2-core machine, 2026-11-24):
// with the pattern made by Node's Cipher in fresh 1 MiB buffers, 978 MB/s
// (5 rounds); from a tmpfs file in slices, 1286; smbclient put, 1162. With
// the pattern made on this thread, 1266 against 1294 from the file and 1198
// for put (7 rounds). OpenSSL's AES-128-CTR runs at ~8 GB/s in place on a
// 512 KiB slice here (openssl speed), about what reading the slice from the
// page cache costs, and no memory is allocated per request.
//
// A signed WRITE (AES-128-GMAC, SMB 3.1.1, MS-SMB2 3.1.4.1) is signed here
// too: the signature covers the data and sits in the header, which goes out
// first, so the thread reads (or makes) the data twice, once into the slice
// for GHASH and once to send, each time into the same cache-sized slice.
// Signing on the main thread needed the data in JavaScript buffers: a
// page-cache copy into memory that had left the cache, the largest cost of a
// signed write (perf: 23% of the process's samples) and 0.84-0.92x
// smbclient put with signing in bench:smb (2026-11-24).

#include <napi.h>

#include "../../common/pattern_keystream.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pipefill {
// src/tcp_info.cc: the kernel's round trip for a connection (TCP_INFO).
Napi::Value TcpRoundTrip(const Napi::CallbackInfo& info);
}  // namespace pipefill

namespace {

// A buffer, a range of a file (fd >= 0), or a range of the test pattern
// (pattern: the keystream of `key` from byte `offset`).
struct Part {
  const uint8_t* data = nullptr;
  size_t length = 0;
  int fd = -1;
  off_t offset = 0;
  bool pattern = false;
  uint8_t key[PIPEFILL_PATTERN_KEY_BYTES] = {};

  bool Ranged() const { return fd >= 0 || pattern; }
};

constexpr size_t kGmacKeyBytes = 16;
constexpr size_t kGmacNonceBytes = 12;
constexpr size_t kSmb2HeaderBytes = 64;
constexpr size_t kSignatureOffset = 48;
constexpr size_t kSignatureBytes = 16;

struct Job {
  uint32_t id = 0;
  std::vector<Part> parts;
  size_t index = 0;  // the part being sent
  size_t done = 0;   // bytes of that part already sent
  bool hasRange = false;  // a file or pattern range: always sent by the thread
  // To be signed with AES-128-GMAC before it is sent: the signature covers
  // parts[signFrom..] and goes into `header`, the job's own copy of the SMB2
  // header (parts[signFrom] points at it), so JavaScript's buffer is never
  // written from this thread.
  bool sign = false;
  size_t signFrom = 0;
  uint8_t gmacKey[kGmacKeyBytes] = {};
  uint8_t nonce[kGmacNonceBytes] = {};
  std::vector<uint8_t> header;

  ~Job() {
    for (const Part& part : parts) {
      if (part.fd >= 0) close(part.fd);
    }
  }
};

std::string ErrnoText(int code) { return std::string(strerrorname_np(code) ? strerrorname_np(code) : "E?") + ": " + strerror(code); }

constexpr int kMaxIov = 64;
// The slice a file or pattern range is made ready in: see the figures at the top.
constexpr size_t kSliceBytes = 512 * 1024;
// Offsets and lengths come from JavaScript numbers: whole and below 2^53.
constexpr double kMaxExact = 9.0e15;

class Sender : public Napi::ObjectWrap<Sender> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Sender", {InstanceMethod<&Sender::Send>("send"), InstanceMethod<&Sender::Close>("close")});
  }

  // new Sender(socketFd, onDone(id, error | null))
  explicit Sender(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Sender>(info), slice_(kSliceBytes) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsFunction()) throw Napi::TypeError::New(env, "new Sender(fd, onDone) needs a descriptor and a function");
    cipher_ = EVP_CIPHER_CTX_new();
    mac_ = EVP_CIPHER_CTX_new();
    if (cipher_ == nullptr || mac_ == nullptr) {
      EVP_CIPHER_CTX_free(cipher_);
      EVP_CIPHER_CTX_free(mac_);
      cipher_ = nullptr;
      mac_ = nullptr;
      throw Napi::Error::New(env, "cannot allocate a cipher context");
    }
    const int fd = info[0].As<Napi::Number>().Int32Value();
    fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) {
      const int code = errno;
      EVP_CIPHER_CTX_free(cipher_);
      EVP_CIPHER_CTX_free(mac_);
      cipher_ = nullptr;
      mac_ = nullptr;
      throw Napi::Error::New(env, "cannot duplicate the socket descriptor: " + ErrnoText(code));
    }
    wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_ < 0) {
      const int code = errno;
      close(fd_);
      fd_ = -1;
      EVP_CIPHER_CTX_free(cipher_);
      EVP_CIPHER_CTX_free(mac_);
      cipher_ = nullptr;
      mac_ = nullptr;
      throw Napi::Error::New(env, "cannot create an eventfd: " + ErrnoText(code));
    }
    // At the environment's teardown Node may finalize the function before this
    // object: Stop() must then not release it again.
    auto* finalized = new std::shared_ptr<std::atomic<bool>>(doneFinalized_);
    done_ = Napi::ThreadSafeFunction::New(env, info[1].As<Napi::Function>(), "pipefill-sender", 0, 1, [](Napi::Env, std::shared_ptr<std::atomic<bool>>* flag) {
      (*flag)->store(true);
      delete flag;
    }, finalized);
    // An idle sender must not keep the process alive; the socket does that while it is open.
    done_.Unref(env);
    thread_ = std::thread([this] { Run(); });
  }

  ~Sender() override { Stop(); }

 private:
  // send(parts: (Buffer | {fd, offset, length} | {patternKey, offset, length})[],
  //      sign?: {gmacKey, nonce, header}) -> 0 when all went out at once, else
  // the job id its completion will carry. With `sign`, parts[header] is an
  // SMB2 header whose flags say signed and whose signature field is zero;
  // the thread signs parts[header..] with AES-128-GMAC under `gmacKey` and
  // `nonce` (12 bytes, from the header: MS-SMB2 3.1.4.1) before sending any
  // of it. Throws once the socket has failed.
  Napi::Value Send(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "send(parts) needs an array");
    if (stopped_) throw Napi::Error::New(env, "the sender is closed");
    const Napi::Array parts = info[0].As<Napi::Array>();
    auto job = std::make_unique<Job>();
    job->parts.reserve(parts.Length());
    int64_t headerIndex = -1;
    if (info.Length() >= 2 && !info[1].IsUndefined()) {
      if (!info[1].IsObject()) throw Napi::TypeError::New(env, "sign is {gmacKey, nonce, header}");
      const Napi::Object sign = info[1].As<Napi::Object>();
      const Napi::Value key = sign.Get("gmacKey");
      const Napi::Value nonce = sign.Get("nonce");
      const double header = sign.Get("header").ToNumber().DoubleValue();
      if (!key.IsBuffer() || key.As<Napi::Buffer<uint8_t>>().Length() != kGmacKeyBytes) throw Napi::RangeError::New(env, "a signature needs a 16-byte GMAC key");
      if (!nonce.IsBuffer() || nonce.As<Napi::Buffer<uint8_t>>().Length() != kGmacNonceBytes) throw Napi::RangeError::New(env, "a signature needs a 12-byte nonce");
      if (!(header >= 0) || header >= parts.Length() || header != static_cast<double>(static_cast<uint32_t>(header))) throw Napi::RangeError::New(env, "a signature's header is the index of one of the parts");
      const Napi::Value headerPart = parts.Get(static_cast<uint32_t>(header));
      if (!headerPart.IsBuffer() || headerPart.As<Napi::Buffer<uint8_t>>().Length() != kSmb2HeaderBytes) throw Napi::RangeError::New(env, "a signature's header is a 64-byte buffer");
      memcpy(job->gmacKey, key.As<Napi::Buffer<uint8_t>>().Data(), kGmacKeyBytes);
      memcpy(job->nonce, nonce.As<Napi::Buffer<uint8_t>>().Data(), kGmacNonceBytes);
      headerIndex = static_cast<int64_t>(header);
      job->sign = true;
    }
    for (uint32_t i = 0; i < parts.Length(); ++i) {
      const Napi::Value value = parts.Get(i);
      Part part;
      if (static_cast<int64_t>(i) == headerIndex) {
        // The job's own copy, which the thread writes the signature into.
        const auto buffer = value.As<Napi::Buffer<uint8_t>>();
        job->header.assign(buffer.Data(), buffer.Data() + buffer.Length());
        job->signFrom = job->parts.size();
        part.data = job->header.data();
        part.length = job->header.size();
      } else if (value.IsBuffer()) {
        const auto buffer = value.As<Napi::Buffer<uint8_t>>();
        part.data = buffer.Data();
        part.length = buffer.Length();
      } else if (value.IsObject() && value.As<Napi::Object>().Get("patternKey").IsBuffer()) {
        const Napi::Object range = value.As<Napi::Object>();
        const auto key = range.Get("patternKey").As<Napi::Buffer<uint8_t>>();
        const double offset = range.Get("offset").ToNumber().DoubleValue();
        const double length = range.Get("length").ToNumber().DoubleValue();
        if (key.Length() != PIPEFILL_PATTERN_KEY_BYTES) throw Napi::RangeError::New(env, "a pattern range needs a 16-byte key");
        if (!(offset >= 0) || !(length >= 0) || offset > kMaxExact || length > kMaxExact || offset != static_cast<double>(static_cast<uint64_t>(offset)) || length != static_cast<double>(static_cast<uint64_t>(length))) throw Napi::RangeError::New(env, "a pattern range needs whole offset and length >= 0");
        memcpy(part.key, key.Data(), sizeof part.key);
        part.pattern = true;
        part.offset = static_cast<off_t>(offset);
        part.length = static_cast<size_t>(length);
        job->hasRange = true;
      } else if (value.IsObject()) {
        const Napi::Object range = value.As<Napi::Object>();
        const double fd = range.Get("fd").ToNumber().DoubleValue();
        const double offset = range.Get("offset").ToNumber().DoubleValue();
        const double length = range.Get("length").ToNumber().DoubleValue();
        if (!(fd >= 0) || !(offset >= 0) || !(length >= 0) || offset > kMaxExact || length > kMaxExact) throw Napi::RangeError::New(env, "a file range needs fd, offset and length >= 0");
        part.fd = fcntl(static_cast<int>(fd), F_DUPFD_CLOEXEC, 0);
        if (part.fd < 0) throw Napi::Error::New(env, "cannot duplicate the source file's descriptor: " + ErrnoText(errno));
        part.offset = static_cast<off_t>(offset);
        part.length = static_cast<size_t>(length);
        job->hasRange = true;
      } else {
        throw Napi::TypeError::New(env, "each part is a Buffer, {fd, offset, length} or {patternKey, offset, length}");
      }
      if (part.length > 0) job->parts.push_back(part);
      else if (part.fd >= 0) close(part.fd);
    }

    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_ != 0) throw Napi::Error::New(env, "the connection failed: " + ErrnoText(failed_));
    // Small requests (headers, metadata) go out at once when nothing is
    // queued ahead of them, as libuv's own try-write does: no thread hop for
    // a round trip. File and pattern data, and what is to be signed, always go through the thread.
    if (queue_.empty() && !busy_ && !job->hasRange && !job->sign) {
      const int code = Advance(*job);
      if (code == 0) return Napi::Number::New(env, 0);
      if (code != EAGAIN) {
        failed_ = code;
        throw Napi::Error::New(env, "the connection failed: " + ErrnoText(code));
      }
    }
    job->id = nextId_++;
    if (nextId_ == 0) nextId_ = 1;
    const uint32_t id = job->id;
    queue_.push_back(std::move(job));
    lock.unlock();
    ready_.notify_one();
    return Napi::Number::New(env, id);
  }

  void Close(const Napi::CallbackInfo&) { Stop(); }

  // Sends what the socket takes now: 0 when the job is done, EAGAIN when the
  // socket is full, another errno when it failed.
  int Advance(Job& job) {
    while (job.index < job.parts.size()) {
      const Part& part = job.parts[job.index];
      ssize_t sent;
      if (!part.Ranged()) {
        iovec iov[kMaxIov];
        int count = 0;
        size_t skip = job.done;
        size_t next = job.index;
        for (; next < job.parts.size() && !job.parts[next].Ranged() && count < kMaxIov; ++next, ++count) {
          iov[count].iov_base = const_cast<uint8_t*>(job.parts[next].data + skip);
          iov[count].iov_len = job.parts[next].length - skip;
          skip = 0;
        }
        msghdr message{};
        message.msg_iov = iov;
        message.msg_iovlen = count;
        // A header followed by file data: let TCP put them in one segment.
        const int flags = MSG_NOSIGNAL | (next < job.parts.size() ? MSG_MORE : 0);
        sent = sendmsg(fd_, &message, flags);
      } else {
        if (sliceJob_ != job.id || slicePart_ != job.index || job.done >= sliceBase_ + sliceLength_) {
          const int code = FillSlice(part, job.done, std::min(kSliceBytes, part.length - job.done), &sliceLength_);
          if (code != 0) return code;
          sliceJob_ = job.id;
          slicePart_ = job.index;
          sliceBase_ = job.done;
        }
        const size_t from = job.done - sliceBase_;
        const bool more = job.done + (sliceLength_ - from) < part.length || job.index + 1 < job.parts.size();
        sent = send(fd_, slice_.data() + from, sliceLength_ - from, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
      }
      if (sent < 0) {
        if (errno == EINTR) continue;
        return errno == EWOULDBLOCK ? EAGAIN : errno;
      }
      size_t left = static_cast<size_t>(sent);
      while (left > 0 && job.index < job.parts.size()) {
        const size_t remaining = job.parts[job.index].length - job.done;
        if (left >= remaining) {
          left -= remaining;
          ++job.index;
          job.done = 0;
        } else {
          job.done += left;
          left = 0;
        }
      }
    }
    return 0;
  }

  // Fills the slice with `want` bytes of a range from `at` bytes into it: the
  // file's (fewer when it ends) or the pattern's. Returns 0, or the errno.
  int FillSlice(const Part& part, size_t at, size_t want, size_t* got) {
    if (part.pattern) {
      *got = want;
      return MakePattern(part, at, want);
    }
    for (;;) {
      const ssize_t read = pread(part.fd, slice_.data(), want, part.offset + static_cast<off_t>(at));
      if (read < 0 && errno == EINTR) continue;
      if (read < 0) return errno;
      if (read == 0) return EIO;  // the source file is shorter than the range
      *got = static_cast<size_t>(read);
      return 0;
    }
  }

  // GHASH input in updates OpenSSL takes (an int's length each).
  bool AddAad(const uint8_t* data, size_t length) {
    for (size_t at = 0; at < length;) {
      const int take = static_cast<int>(std::min(length - at, PIPEFILL_PATTERN_UPDATE_BYTES));
      int written = 0;
      if (EVP_EncryptUpdate(mac_, nullptr, &written, data + at, take) != 1) return false;
      at += static_cast<size_t>(take);
    }
    return true;
  }

  // AES-128-GMAC (MS-SMB2 3.1.4.1): AES-128-GCM with the message as additional
  // data and nothing to encrypt; the tag, written into the job's header, is
  // the signature. Ranges are read (or made) slice by slice for it, and again
  // when they are sent. Returns 0, or the errno the connection fails with.
  int Sign(Job& job) {
    if (EVP_EncryptInit_ex(mac_, EVP_aes_128_gcm(), nullptr, nullptr, nullptr) != 1 || EVP_CIPHER_CTX_ctrl(mac_, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kGmacNonceBytes), nullptr) != 1 ||
        EVP_EncryptInit_ex(mac_, nullptr, nullptr, job.gmacKey, job.nonce) != 1) {
      return EPROTO;
    }
    for (size_t index = job.signFrom; index < job.parts.size(); ++index) {
      const Part& part = job.parts[index];
      if (!part.Ranged()) {
        if (!AddAad(part.data, part.length)) return EPROTO;
        continue;
      }
      for (size_t at = 0; at < part.length;) {
        size_t got = 0;
        const int code = FillSlice(part, at, std::min(kSliceBytes, part.length - at), &got);
        if (code != 0) return code;
        if (!AddAad(slice_.data(), got)) return EPROTO;
        at += got;
      }
    }
    uint8_t tag[kSignatureBytes];
    int written = 0;
    if (EVP_EncryptFinal_ex(mac_, tag, &written) != 1 || EVP_CIPHER_CTX_ctrl(mac_, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kSignatureBytes), tag) != 1) return EPROTO;
    memcpy(job.header.data() + kSignatureOffset, tag, kSignatureBytes);
    job.sign = false;
    sliceJob_ = 0;  // the slice holds what was signed last: the send reads its data again
    return 0;
  }

  // Makes `want` bytes of a pattern range, from `at` bytes into it, in the slice.
  int MakePattern(const Part& part, size_t at, size_t want) {
    if (pipefill_pattern_seek(cipher_, part.key, static_cast<uint64_t>(part.offset) + at) != 1 || pipefill_pattern_next(cipher_, slice_.data(), want) != 1) {
      return EPROTO;  // OpenSSL refused: the connection fails rather than send wrong bytes
    }
    return 0;
  }

  // Waits until the socket takes more, or Stop() is called (ECANCELED).
  int WaitWritable() {
    pollfd fds[2] = {{fd_, POLLOUT, 0}, {wake_, POLLIN, 0}};
    for (;;) {
      const int ready = poll(fds, 2, -1);
      if (ready < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      if (fds[1].revents != 0) return ECANCELED;
      return 0;  // writable, or an error the next send reports
    }
  }

  void Run() {
    for (;;) {
      Job* job;
      int code;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = queue_.front().get();
        busy_ = true;
        code = failed_;
      }
      if (code == 0 && job->sign) code = Sign(*job);
      while (code == 0) {
        code = Advance(*job);
        if (code != EAGAIN) break;
        code = WaitWritable();
      }
      std::unique_ptr<Job> finished;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        finished = std::move(queue_.front());
        queue_.pop_front();
        busy_ = false;
        if (code == ECANCELED) return;
        if (code != 0 && failed_ == 0) failed_ = code;
      }
      Complete(finished->id, code);
    }
  }

  void Complete(uint32_t id, int code) {
    auto* result = new std::pair<uint32_t, int>(id, code);
    const napi_status status = done_.NonBlockingCall(result, [](Napi::Env env, Napi::Function onDone, std::pair<uint32_t, int>* data) {
      const Napi::Value error = data->second == 0 ? env.Null() : Napi::String::New(env, ErrnoText(data->second)).As<Napi::Value>();
      const uint32_t jobId = data->first;
      delete data;
      onDone.Call({Napi::Number::New(env, jobId), error});
    });
    if (status != napi_ok) delete result;
  }

  // Stops the thread (a send in progress is abandoned: the caller is closing
  // the connection) and closes the descriptors. Safe to call twice.
  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    const uint64_t one = 1;
    if (write(wake_, &one, sizeof one) < 0) {
      // The eventfd cannot be full after one write; nothing else can fail here.
    }
    if (thread_.joinable()) thread_.join();
    queue_.clear();
    close(fd_);
    close(wake_);
    fd_ = -1;
    wake_ = -1;
    EVP_CIPHER_CTX_free(cipher_);
    EVP_CIPHER_CTX_free(mac_);
    cipher_ = nullptr;
    mac_ = nullptr;
    if (!doneFinalized_->load()) done_.Release();
  }

  int fd_ = -1;
  int wake_ = -1;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::unique_ptr<Job>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  bool stopped_ = false;
  int failed_ = 0;
  uint32_t nextId_ = 1;
  // The slice last made ready (used by the thread only): which job and part, where in it, how long.
  std::vector<uint8_t> slice_;
  uint32_t sliceJob_ = 0;
  size_t slicePart_ = 0;
  size_t sliceBase_ = 0;
  size_t sliceLength_ = 0;
  EVP_CIPHER_CTX* cipher_ = nullptr;  // the thread's, for pattern slices
  EVP_CIPHER_CTX* mac_ = nullptr;     // the thread's, for GMAC signatures
  std::thread thread_;
  Napi::ThreadSafeFunction done_;
  std::shared_ptr<std::atomic<bool>> doneFinalized_ = std::make_shared<std::atomic<bool>>(false);
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Sender", Sender::Define(env));
  exports.Set("tcpRoundTrip", Napi::Function::New(env, pipefill::TcpRoundTrip));
  return exports;
}

}  // namespace

NODE_API_MODULE(pipefill_sender, Init)
