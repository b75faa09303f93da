// Pipefill's N-API binding over libiperf: one iperf3 client test, run on a
// libuv worker thread so the UI and the CLI's progress keep moving, and
// cancellable from JavaScript.
//
// Two things libiperf 3.12 does not offer, and how this file gets them:
// - Its JSON result is also printed to the test's outfile (stdout by default)
//   and iperf_api.h has no setter for outfile. Setting a log file of
//   /dev/null makes iperf_run_client() open that instead, so a `--json`
//   command's stdout stays clean; the result comes from
//   iperf_get_test_json_output_string().
// - There is no "stop" call. Cancel marks the test done and shuts the control
//   socket down: select() in the client loop wakes at once, the next read of
//   the control channel fails, and iperf_run_client() returns.
// libiperf keeps its error in the global i_errno, so the JavaScript side runs
// one test at a time.

#include <napi.h>

#include <sys/socket.h>

#include <memory>
#include <mutex>
#include <string>

extern "C" {
#include <iperf_api.h>
}

namespace {

struct ClientOptions {
  std::string host;
  int port = 5201;
  int seconds = 5;
  int omitSeconds = 0;
  bool reverse = true;
  int streams = 1;
  int connectTimeoutMs = 5000;
  // Seconds per interval in the JSON's "intervals" (libiperf's -i); 0 keeps its default of 1 s.
  double intervalSeconds = 0;
};

// What the JavaScript handle and the worker thread share. `test` is set only
// while iperf_run_client() runs, under the mutex.
struct RunState {
  std::mutex mutex;
  iperf_test* test = nullptr;
  bool cancelled = false;
};

class ClientWorker : public Napi::AsyncWorker {
 public:
  ClientWorker(Napi::Env env, ClientOptions options, std::shared_ptr<RunState> state)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), options_(std::move(options)), state_(std::move(state)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    iperf_test* test = iperf_new_test();
    if (test == nullptr) {
      error_ = "libiperf could not allocate a test";
      return;
    }
    iperf_defaults(test);
    iperf_set_test_role(test, 'c');
    iperf_set_test_server_hostname(test, options_.host.c_str());
    iperf_set_test_server_port(test, options_.port);
    iperf_set_test_duration(test, options_.seconds);
    iperf_set_test_omit(test, options_.omitSeconds);
    iperf_set_test_reverse(test, options_.reverse ? 1 : 0);
    iperf_set_test_num_streams(test, options_.streams);
    iperf_set_test_connect_timeout(test, options_.connectTimeoutMs);
    if (options_.intervalSeconds > 0) {
      iperf_set_test_reporter_interval(test, options_.intervalSeconds);
      iperf_set_test_stats_interval(test, options_.intervalSeconds);
    }
    iperf_set_test_json_output(test, 1);
    iperf_set_test_logfile(test, "/dev/null");
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (state_->cancelled) {
        iperf_free_test(test);
        return;
      }
      state_->test = test;
    }
    const int rc = iperf_run_client(test);
    const int code = i_errno;
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->test = nullptr;
    }
    const char* json = iperf_get_test_json_output_string(test);
    if (json != nullptr) json_ = json;
    if (rc < 0 && json_.empty()) error_ = iperf_strerror(code);
    iperf_free_test(test);
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object result = Napi::Object::New(env);
    bool cancelled;
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      cancelled = state_->cancelled;
    }
    result.Set("cancelled", Napi::Boolean::New(env, cancelled));
    if (!json_.empty()) result.Set("json", Napi::String::New(env, json_));
    if (!error_.empty()) result.Set("error", Napi::String::New(env, error_));
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  ClientOptions options_;
  std::shared_ptr<RunState> state_;
  std::string json_;
  std::string error_;
};

int IntOption(const Napi::Object& object, const char* name, int fallback, int min, int max) {
  Napi::Value value = object.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) throw Napi::TypeError::New(object.Env(), std::string(name) + " must be a number");
  const double number = value.As<Napi::Number>().DoubleValue();
  if (number != static_cast<int>(number) || number < min || number > max) {
    throw Napi::RangeError::New(object.Env(), std::string(name) + " must be a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return static_cast<int>(number);
}

void Cancel(const std::shared_ptr<RunState>& state) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->cancelled = true;
  if (state->test == nullptr) return;
  iperf_set_test_state(state->test, IPERF_DONE);
  const int control = iperf_get_control_socket(state->test);
  if (control >= 0) shutdown(control, SHUT_RDWR);
}

// runClient({ host, port, seconds, omitSeconds, reverse, streams, connectTimeoutMs })
//   -> { promise: Promise<{ json?, error?, cancelled }>, cancel(): void }
Napi::Value RunClient(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "runClient needs an options object");
  const Napi::Object object = info[0].As<Napi::Object>();
  ClientOptions options;
  const Napi::Value host = object.Get("host");
  if (!host.IsString() || host.As<Napi::String>().Utf8Value().empty()) throw Napi::TypeError::New(env, "host must be a non-empty string");
  options.host = host.As<Napi::String>().Utf8Value();
  options.port = IntOption(object, "port", options.port, 1, 65535);
  options.seconds = IntOption(object, "seconds", options.seconds, 1, 3600);
  options.omitSeconds = IntOption(object, "omitSeconds", options.omitSeconds, 0, 60);
  options.streams = IntOption(object, "streams", options.streams, 1, 128);
  options.connectTimeoutMs = IntOption(object, "connectTimeoutMs", options.connectTimeoutMs, 1, 600000);
  const Napi::Value interval = object.Get("intervalSeconds");
  if (!interval.IsUndefined()) {
    // libiperf refuses intervals under 0.1 s (its MIN_INTERVAL) and over 60 s.
    if (!interval.IsNumber() || !(interval.As<Napi::Number>().DoubleValue() >= 0.1 && interval.As<Napi::Number>().DoubleValue() <= 60)) {
      throw Napi::RangeError::New(env, "intervalSeconds must be a number from 0.1 to 60");
    }
    options.intervalSeconds = interval.As<Napi::Number>().DoubleValue();
  }
  const Napi::Value reverse = object.Get("reverse");
  if (!reverse.IsUndefined()) options.reverse = reverse.ToBoolean().Value();

  auto state = std::make_shared<RunState>();
  auto* worker = new ClientWorker(env, std::move(options), state);
  Napi::Object handle = Napi::Object::New(env);
  handle.Set("promise", worker->Promise());
  handle.Set("cancel", Napi::Function::New(env, [state](const Napi::CallbackInfo&) { Cancel(state); }));
  worker->Queue();
  return handle;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("runClient", Napi::Function::New(env, RunClient));
  return exports;
}

}  // namespace

NODE_API_MODULE(pipefill_iperf3, Init)
