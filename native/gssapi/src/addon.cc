// Kerberos for SMB logons, through the platform's own GSS-API (MIT krb5 on
// Linux): a person's existing ticket is used as it is, and with a password
// the ticket is asked for here (gss_acquire_cred_with_password), kept in
// memory and never written to a cache. The mechanism is Kerberos itself
// (RFC 4121); Pipefill wraps its tokens in SPNEGO (src/smb/security/spnego.ts)
// because through the library's own SPNEGO every Kerberos error code comes
// back renumbered, and the person would lose "clock skew" or "no service
// principal" for "SPNEGO cannot find mechanisms". The SMB session key is the context's session
// key (MS-SMB2 3.2.5.3: "the cryptographic key queried from the GSS
// protocol"), read through GSS_C_INQ_SSPI_SESSION_KEY, which gives the
// acceptor's subkey when its AP-REP carried one, as SSPI does on Windows.
//
// new Context({ target: "cifs@host", principal?, password? })
//   step(token | null) -> Promise<{ token: Buffer, complete: boolean }>
//     The first call gets the credentials (this may talk to the KDC); each
//     call runs on a libuv worker thread, never on the JavaScript thread.
//   sessionKey() -> Buffer      once complete
//   initiator() -> string       the principal the ticket is for
//   Context.defaultRealm() -> string | undefined   krb5.conf's default_realm
//   getMic(data) -> Buffer, verifyMic(data, mic) -> boolean
//     SPNEGO's mechListMIC (RFC 4178 5), with the context's keys
// Failures reject with an Error carrying `kind` (what went wrong, in
// Pipefill's words: wrong-password, clock-skew, no-service-principal, ...),
// `major`, `minor`, and the library's own text in `message`.

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>
#include <napi.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>

namespace {

gss_OID_desc kKrb5 = {9, const_cast<char*>("\x2a\x86\x48\x86\xf7\x12\x01\x02\x02")};

/** What a failure means for the person, from the Kerberos error behind it. */
const char* KindOf(OM_uint32 major, OM_uint32 minor) {
  switch (static_cast<krb5_error_code>(minor)) {
    case KRB5KDC_ERR_PREAUTH_FAILED:
    case KRB5KRB_AP_ERR_BAD_INTEGRITY:
      return "wrong-password";
    case KRB5KDC_ERR_C_PRINCIPAL_UNKNOWN:
      return "unknown-user";
    case KRB5KDC_ERR_S_PRINCIPAL_UNKNOWN:
      return "no-service-principal";
    case KRB5KRB_AP_ERR_SKEW:
      return "clock-skew";
    case KRB5KRB_AP_ERR_TKT_EXPIRED:
    case KRB5KDC_ERR_TGT_REVOKED:
      return "ticket-expired";
    case KRB5KDC_ERR_KEY_EXP:
      return "password-expired";
    case KRB5KDC_ERR_CLIENT_REVOKED:
      return "account-locked";
    case KRB5_KDC_UNREACH:
    case KRB5_REALM_CANT_RESOLVE:
    case KRB5_REALM_UNKNOWN:
      return "kdc-unreachable";
    case KRB5_CONFIG_NODEFREALM:
      return "no-realm";
    case KRB5_CC_NOTFOUND:
    case KRB5_FCC_NOFILE:
      return "no-ticket";
    default:
      break;
  }
  switch (GSS_ROUTINE_ERROR(major)) {
    case GSS_S_CREDENTIALS_EXPIRED:
      return "ticket-expired";
    case GSS_S_NO_CRED:
      return "no-ticket";
    case GSS_S_DEFECTIVE_TOKEN:
    case GSS_S_BAD_SIG:
      return "bad-reply";
    default:
      return "kerberos-failed";
  }
}

/** The library's own words for a status (major, then the mechanism's minor). */
std::string StatusText(OM_uint32 major, OM_uint32 minor) {
  std::string text;
  auto append = [&text](OM_uint32 status, int type, const gss_OID mech) {
    OM_uint32 context = 0;
    // Bounded: a status has a handful of messages at most.
    for (int i = 0; i < 8; i++) {
      OM_uint32 ignored = 0;
      gss_buffer_desc message = GSS_C_EMPTY_BUFFER;
      if (gss_display_status(&ignored, status, type, mech, &context, &message) != GSS_S_COMPLETE) break;
      if (!text.empty()) text += "; ";
      text.append(static_cast<const char*>(message.value), message.length);
      gss_release_buffer(&ignored, &message);
      if (context == 0) break;
    }
  };
  // Kerberos's own words say what happened ("Clock skew too great"); the GSS-API's
  // ("No credentials were supplied, or ...") only where Kerberos said nothing.
  if (minor != 0) append(minor, GSS_C_MECH_CODE, &kKrb5);
  else if (GSS_ERROR(major)) append(major, GSS_C_GSS_CODE, GSS_C_NO_OID);
  return text.empty() ? "Kerberos failed" : text;
}

/** A failure as it crosses to JavaScript. */
struct Failure {
  OM_uint32 major = 0;
  OM_uint32 minor = 0;
  std::string message;
};

/** One security context and its credentials; a worker uses it while JavaScript waits. */
struct State {
  std::mutex busy;
  std::string target;
  std::string principal;
  std::string password;
  bool hasPrincipal = false;
  bool hasPassword = false;
  gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
  gss_ctx_id_t context = GSS_C_NO_CONTEXT;
  gss_name_t targetName = GSS_C_NO_NAME;
  bool complete = false;

  ~State() {
    OM_uint32 minor = 0;
    if (context != GSS_C_NO_CONTEXT) gss_delete_sec_context(&minor, &context, GSS_C_NO_BUFFER);
    if (cred != GSS_C_NO_CREDENTIAL) gss_release_cred(&minor, &cred);
    if (targetName != GSS_C_NO_NAME) gss_release_name(&minor, &targetName);
    // The password leaves memory with the context.
    if (!password.empty()) std::memset(&password[0], 0, password.size());
  }

  /** The person's credentials: the password's ticket, or the cache's for `principal` (or its default). */
  bool Acquire(Failure* failure) {
    OM_uint32 minor = 0;
    gss_name_t name = GSS_C_NO_NAME;
    if (hasPrincipal) {
      gss_buffer_desc buffer = {principal.size(), const_cast<char*>(principal.data())};
      OM_uint32 major = gss_import_name(&minor, &buffer, GSS_C_NT_USER_NAME, &name);
      if (GSS_ERROR(major)) return Fail(failure, major, minor);
    }
    gss_OID_set_desc krb5Only = {1, &kKrb5};
    OM_uint32 major;
    if (hasPassword) {
      gss_buffer_desc secret = {password.size(), const_cast<char*>(password.data())};
      major = gss_acquire_cred_with_password(&minor, name, &secret, GSS_C_INDEFINITE, &krb5Only, GSS_C_INITIATE, &cred, nullptr, nullptr);
    } else {
      major = gss_acquire_cred(&minor, name, GSS_C_INDEFINITE, &krb5Only, GSS_C_INITIATE, &cred, nullptr, nullptr);
    }
    OM_uint32 ignored = 0;
    if (name != GSS_C_NO_NAME) gss_release_name(&ignored, &name);
    if (GSS_ERROR(major)) return Fail(failure, major, minor);
    gss_buffer_desc service = {target.size(), const_cast<char*>(target.data())};
    major = gss_import_name(&minor, &service, GSS_C_NT_HOSTBASED_SERVICE, &targetName);
    if (GSS_ERROR(major)) return Fail(failure, major, minor);
    return true;
  }

  bool Step(const std::string& input, bool hasInput, std::string* output, Failure* failure) {
    if (cred == GSS_C_NO_CREDENTIAL && !Acquire(failure)) return false;
    OM_uint32 minor = 0;
    gss_buffer_desc in = {input.size(), const_cast<char*>(input.data())};
    gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
    // Mutual authentication: the server's AP-REP proves it holds the service key and brings the acceptor's subkey.
    OM_uint32 major = gss_init_sec_context(&minor, cred, &context, targetName, &kKrb5, GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG, 0,
                                           GSS_C_NO_CHANNEL_BINDINGS, hasInput ? &in : GSS_C_NO_BUFFER, nullptr, &out, nullptr, nullptr);
    if (out.length > 0) output->assign(static_cast<const char*>(out.value), out.length);
    OM_uint32 ignored = 0;
    gss_release_buffer(&ignored, &out);
    if (GSS_ERROR(major)) return Fail(failure, major, minor);
    complete = major == GSS_S_COMPLETE;
    return true;
  }

  bool Fail(Failure* failure, OM_uint32 major, OM_uint32 minor) {
    failure->major = major;
    failure->minor = minor;
    failure->message = StatusText(major, minor);
    return false;
  }
};

class StepWorker : public Napi::AsyncWorker {
 public:
  StepWorker(Napi::Env env, std::shared_ptr<State> state, std::string input, bool hasInput)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), state_(std::move(state)), input_(std::move(input)), hasInput_(hasInput) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    std::lock_guard<std::mutex> lock(state_->busy);
    ok_ = state_->Step(input_, hasInput_, &output_, &failure_);
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (!ok_) {
      Napi::Error error = Napi::Error::New(env, failure_.message);
      error.Set("kind", Napi::String::New(env, KindOf(failure_.major, failure_.minor)));
      error.Set("major", Napi::Number::New(env, failure_.major));
      error.Set("minor", Napi::Number::New(env, static_cast<double>(static_cast<int32_t>(failure_.minor))));
      deferred_.Reject(error.Value());
      return;
    }
    Napi::Object result = Napi::Object::New(env);
    result.Set("token", Napi::Buffer<char>::Copy(env, output_.data(), output_.size()));
    result.Set("complete", Napi::Boolean::New(env, state_->complete));
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<State> state_;
  std::string input_;
  bool hasInput_;
  std::string output_;
  Failure failure_;
  bool ok_ = false;
};

class Context : public Napi::ObjectWrap<Context> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Context",
                       {InstanceMethod("step", &Context::Step), InstanceMethod("sessionKey", &Context::SessionKey),
                        InstanceMethod("initiator", &Context::Initiator), InstanceMethod("getMic", &Context::GetMic),
                        InstanceMethod("verifyMic", &Context::VerifyMic), StaticMethod("defaultRealm", &Context::DefaultRealm)});
  }

  explicit Context(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Context>(info), state_(std::make_shared<State>()) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) {
      Napi::TypeError::New(env, "Context({ target, principal?, password? })").ThrowAsJavaScriptException();
      return;
    }
    Napi::Object options = info[0].As<Napi::Object>();
    if (!options.Get("target").IsString()) {
      Napi::TypeError::New(env, "target must be a string such as cifs@host").ThrowAsJavaScriptException();
      return;
    }
    state_->target = options.Get("target").As<Napi::String>().Utf8Value();
    if (options.Get("principal").IsString()) {
      state_->principal = options.Get("principal").As<Napi::String>().Utf8Value();
      state_->hasPrincipal = true;
    }
    if (options.Get("password").IsString()) {
      state_->password = options.Get("password").As<Napi::String>().Utf8Value();
      state_->hasPassword = true;
    }
  }

 private:
  Napi::Value Step(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string input;
    bool hasInput = false;
    if (info.Length() > 0 && info[0].IsBuffer()) {
      Napi::Buffer<char> buffer = info[0].As<Napi::Buffer<char>>();
      input.assign(buffer.Data(), buffer.Length());
      hasInput = true;
    } else if (info.Length() > 0 && !info[0].IsNull() && !info[0].IsUndefined()) {
      Napi::TypeError::New(env, "step(token: Buffer | null)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto* worker = new StepWorker(env, state_, std::move(input), hasInput);
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  Napi::Value SessionKey(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::unique_lock<std::mutex> lock(state_->busy, std::try_to_lock);
    if (!Ready(env, lock)) return env.Undefined();
    OM_uint32 minor = 0;
    gss_buffer_set_t data = GSS_C_NO_BUFFER_SET;
    OM_uint32 major = gss_inquire_sec_context_by_oid(&minor, state_->context, GSS_C_INQ_SSPI_SESSION_KEY, &data);
    if (GSS_ERROR(major) || data == GSS_C_NO_BUFFER_SET || data->count < 1) {
      Napi::Error::New(env, "No session key: " + StatusText(major, minor)).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Buffer<char> key = Napi::Buffer<char>::Copy(env, static_cast<const char*>(data->elements[0].value), data->elements[0].length);
    gss_release_buffer_set(&minor, &data);
    return key;
  }

  static Napi::Value DefaultRealm(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    krb5_context context = nullptr;
    if (krb5_init_context(&context) != 0) return env.Undefined();
    char* realm = nullptr;
    Napi::Value result = env.Undefined();
    if (krb5_get_default_realm(context, &realm) == 0 && realm != nullptr) {
      result = Napi::String::New(env, realm);
      krb5_free_default_realm(context, realm);
    }
    krb5_free_context(context);
    return result;
  }

  Napi::Value Initiator(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::unique_lock<std::mutex> lock(state_->busy, std::try_to_lock);
    if (!lock.owns_lock() || state_->context == GSS_C_NO_CONTEXT) return env.Undefined();
    OM_uint32 minor = 0;
    gss_name_t name = GSS_C_NO_NAME;
    if (GSS_ERROR(gss_inquire_context(&minor, state_->context, &name, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr))) return env.Undefined();
    gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
    Napi::Value result = env.Undefined();
    if (!GSS_ERROR(gss_display_name(&minor, name, &text, nullptr)))
      result = Napi::String::New(env, static_cast<const char*>(text.value), text.length);
    gss_release_buffer(&minor, &text);
    gss_release_name(&minor, &name);
    return result;
  }

  /** The complete context, or a thrown error; `lock` keeps a worker off it meanwhile. */
  bool Ready(Napi::Env env, std::unique_lock<std::mutex>& lock) {
    if (!lock.owns_lock() || !state_->complete) {
      Napi::Error::New(env, "The Kerberos context is not complete.").ThrowAsJavaScriptException();
      return false;
    }
    return true;
  }

  Napi::Value GetMic(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::unique_lock<std::mutex> lock(state_->busy, std::try_to_lock);
    if (!Ready(env, lock)) return env.Undefined();
    if (info.Length() < 1 || !info[0].IsBuffer()) {
      Napi::TypeError::New(env, "getMic(data: Buffer)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Buffer<char> data = info[0].As<Napi::Buffer<char>>();
    gss_buffer_desc message = {data.Length(), data.Data()};
    gss_buffer_desc mic = GSS_C_EMPTY_BUFFER;
    OM_uint32 minor = 0;
    OM_uint32 major = gss_get_mic(&minor, state_->context, GSS_C_QOP_DEFAULT, &message, &mic);
    if (GSS_ERROR(major)) {
      Napi::Error::New(env, StatusText(major, minor)).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Buffer<char> result = Napi::Buffer<char>::Copy(env, static_cast<const char*>(mic.value), mic.length);
    gss_release_buffer(&minor, &mic);
    return result;
  }

  Napi::Value VerifyMic(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::unique_lock<std::mutex> lock(state_->busy, std::try_to_lock);
    if (!Ready(env, lock)) return env.Undefined();
    if (info.Length() < 2 || !info[0].IsBuffer() || !info[1].IsBuffer()) {
      Napi::TypeError::New(env, "verifyMic(data: Buffer, mic: Buffer)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Buffer<char> data = info[0].As<Napi::Buffer<char>>();
    Napi::Buffer<char> mic = info[1].As<Napi::Buffer<char>>();
    gss_buffer_desc message = {data.Length(), data.Data()};
    gss_buffer_desc token = {mic.Length(), mic.Data()};
    OM_uint32 minor = 0;
    return Napi::Boolean::New(env, !GSS_ERROR(gss_verify_mic(&minor, state_->context, &message, &token, nullptr)));
  }

  std::shared_ptr<State> state_;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Context", Context::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(pipefill_gssapi, Init)
