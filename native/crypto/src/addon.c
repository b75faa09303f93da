// Opens an SMB 3 TRANSFORM frame's ciphertext in place (MS-SMB2 3.1.4.3):
// AES-GCM or AES-CCM decryption and tag check with the OpenSSL that Node
// itself carries and exports (its headers ship with Node; nothing is linked
// or downloaded). Node's Decipher returns every plaintext in a new buffer:
// for 4 MiB READ replies that measured ~570 MB/s, the allocations and their
// page faults costing more than AES itself; in place, OpenSSL's AES-NI and
// PCLMUL code runs at its own speed and no memory is touched twice.
//
// open(mode, key, nonce, aad, tag, data) -> boolean
//   mode: 0 = GCM, 1 = CCM; key 16 or 32 bytes; nonce 12 (GCM) or 11 (CCM);
//   aad: the transform header's last 32 bytes; tag: 16 bytes; data: the
//   ciphertext, replaced by the plaintext. Returns false when the tag does
//   not verify: the caller must then use none of `data`.
// seal(key, nonce, aad, pieces, tag) -> boolean
//   AES-GCM encryption of the pieces' bytes in order as one message, each
//   piece replaced by its ciphertext, the 16-byte tag written into `tag`
//   (MS-SMB2 3.1.4.3). Node's Cipher returns every ciphertext in a new
//   buffer: 256 MiB of fresh memory per 256 MiB written, whose page faults
//   on a machine that has not touched that memory lately cost a sealed
//   write 0.86x smbclient put (2026-11-26). The caller owns every piece.
// Called on the JavaScript thread, synchronously; every argument is checked.
// It also makes and checks Pipefill's test pattern in place (patternFill,
// patternMatches, below): the same keystream, no fresh memory per piece.

#include <node_api.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <string.h>

#include "../../common/pattern_keystream.h"

#define CHECK(call)                                   \
  do {                                                \
    if ((call) != napi_ok) return throw_error(env, #call); \
  } while (0)

static napi_value throw_error(napi_env env, const char* what) {
  napi_throw_error(env, NULL, what);
  return NULL;
}

static bool buffer_arg(napi_env env, napi_value value, unsigned char** data, size_t* length) {
  bool is_buffer = false;
  if (napi_is_buffer(env, value, &is_buffer) != napi_ok || !is_buffer) return false;
  return napi_get_buffer_info(env, value, (void**)data, length) == napi_ok;
}

static const EVP_CIPHER* cipher_for(int mode, size_t key_length) {
  if (mode == 0) return key_length == 32 ? EVP_aes_256_gcm() : key_length == 16 ? EVP_aes_128_gcm() : NULL;
  if (mode == 1) return key_length == 32 ? EVP_aes_256_ccm() : key_length == 16 ? EVP_aes_128_ccm() : NULL;
  return NULL;
}

static bool open_in_place(int mode, const unsigned char* key, size_t key_length, const unsigned char* nonce, size_t nonce_length, const unsigned char* aad,
                          size_t aad_length, unsigned char* tag, unsigned char* data, size_t length) {
  const EVP_CIPHER* cipher = cipher_for(mode, key_length);
  if (cipher == NULL || length > 0x7fffffff || aad_length > 0x7fffffff) return false;
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == NULL) return false;
  bool ok = false;
  int out = 0;
  if (EVP_DecryptInit_ex(ctx, cipher, NULL, NULL, NULL) != 1) goto done;
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)nonce_length, NULL) != 1) goto done;
  if (mode == 1 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) goto done;
  if (EVP_DecryptInit_ex(ctx, NULL, NULL, key, nonce) != 1) goto done;
  if (mode == 1) {
    // CCM: the length first, then the additional data, then one update that also checks the tag.
    if (EVP_DecryptUpdate(ctx, NULL, &out, NULL, (int)length) != 1) goto done;
    if (EVP_DecryptUpdate(ctx, NULL, &out, aad, (int)aad_length) != 1) goto done;
    ok = EVP_DecryptUpdate(ctx, data, &out, data, (int)length) == 1;
    goto done;
  }
  if (EVP_DecryptUpdate(ctx, NULL, &out, aad, (int)aad_length) != 1) goto done;
  if (EVP_DecryptUpdate(ctx, data, &out, data, (int)length) != 1) goto done;
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) goto done;
  ok = EVP_DecryptFinal_ex(ctx, data + length, &out) == 1;
done:
  EVP_CIPHER_CTX_free(ctx);
  return ok;
}

static napi_value Open(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 6) return throw_error(env, "open(mode, key, nonce, aad, tag, data) takes 6 arguments");
  int32_t mode = -1;
  CHECK(napi_get_value_int32(env, argv[0], &mode));
  unsigned char *key, *nonce, *aad, *tag, *data;
  size_t key_length, nonce_length, aad_length, tag_length, length;
  if (!buffer_arg(env, argv[1], &key, &key_length) || !buffer_arg(env, argv[2], &nonce, &nonce_length) || !buffer_arg(env, argv[3], &aad, &aad_length) ||
      !buffer_arg(env, argv[4], &tag, &tag_length) || !buffer_arg(env, argv[5], &data, &length)) {
    return throw_error(env, "open(): key, nonce, aad, tag and data must be Buffers");
  }
  if ((mode != 0 && mode != 1) || tag_length != 16 || (mode == 0 && nonce_length != 12) || (mode == 1 && nonce_length != 11) || (key_length != 16 && key_length != 32)) {
    return throw_error(env, "open(): mode 0 (GCM, 12-byte nonce) or 1 (CCM, 11-byte nonce), a 16- or 32-byte key, a 16-byte tag");
  }
  unsigned char tag_copy[16];
  memcpy(tag_copy, tag, 16);
  napi_value result;
  CHECK(napi_get_boolean(env, open_in_place(mode, key, key_length, nonce, nonce_length, aad, aad_length, tag_copy, data, length), &result));
  return result;
}

/* At most this many pieces in one sealed message: a compound's headers, bodies and data pieces. */
#define SEAL_MAX_PIECES 1024

static napi_value Seal(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 5) return throw_error(env, "seal(key, nonce, aad, pieces, tag) takes 5 arguments");
  unsigned char *key, *nonce, *aad, *tag;
  size_t key_length, nonce_length, aad_length, tag_length;
  if (!buffer_arg(env, argv[0], &key, &key_length) || !buffer_arg(env, argv[1], &nonce, &nonce_length) || !buffer_arg(env, argv[2], &aad, &aad_length) ||
      !buffer_arg(env, argv[4], &tag, &tag_length)) {
    return throw_error(env, "seal(): key, nonce, aad and tag must be Buffers");
  }
  if (nonce_length != 12 || tag_length != 16 || (key_length != 16 && key_length != 32) || aad_length > 0x7fffffff) {
    return throw_error(env, "seal(): a 16- or 32-byte key, a 12-byte nonce (GCM), a 16-byte tag");
  }
  bool is_array = false;
  uint32_t count = 0;
  CHECK(napi_is_array(env, argv[3], &is_array));
  if (!is_array) return throw_error(env, "seal(): pieces must be an array of Buffers");
  CHECK(napi_get_array_length(env, argv[3], &count));
  if (count > SEAL_MAX_PIECES) return throw_error(env, "seal(): too many pieces");
  // Every piece is checked before a byte is changed: a bad argument leaves all of them as they were.
  unsigned char* data[SEAL_MAX_PIECES];
  size_t lengths[SEAL_MAX_PIECES];
  for (uint32_t i = 0; i < count; i++) {
    napi_value piece;
    CHECK(napi_get_element(env, argv[3], i, &piece));
    if (!buffer_arg(env, piece, &data[i], &lengths[i]) || lengths[i] > 0x7fffffff) return throw_error(env, "seal(): pieces must be an array of Buffers");
  }
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == NULL) return throw_error(env, "seal(): out of memory");
  bool ok = false;
  int out = 0;
  if (EVP_EncryptInit_ex(ctx, cipher_for(0, key_length), NULL, NULL, NULL) != 1) goto done;
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1) goto done;
  if (EVP_EncryptInit_ex(ctx, NULL, NULL, key, nonce) != 1) goto done;
  if (EVP_EncryptUpdate(ctx, NULL, &out, aad, (int)aad_length) != 1) goto done;
  // GCM is a stream mode in OpenSSL: a piece of any length continues where the one before stopped.
  for (uint32_t i = 0; i < count; i++) {
    if (lengths[i] > 0 && EVP_EncryptUpdate(ctx, data[i], &out, data[i], (int)lengths[i]) != 1) goto done;
  }
  if (EVP_EncryptFinal_ex(ctx, NULL, &out) != 1) goto done;
  ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1;
done:
  EVP_CIPHER_CTX_free(ctx);
  napi_value result;
  CHECK(napi_get_boolean(env, ok, &result));
  return result;
}

// The test pattern (native/common/pattern_keystream.h) for src/copy/pattern.ts:
//   patternFill(key, offset, target): target's bytes become the pattern's from `offset`;
//   patternMatches(key, offset, data) -> boolean: whether data holds exactly those bytes.
// key: 16 bytes; offset: a whole number of bytes below 2^53. Synchronous.

/* Bytes compared per step: the pattern is made into this much stack, then compared. */
#define MATCH_STEP_BYTES 16384

static bool pattern_args(napi_env env, napi_callback_info info, unsigned char** key, uint64_t* offset, unsigned char** data, size_t* length) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3) return false;
  size_t key_length = 0;
  double at = -1;
  if (!buffer_arg(env, argv[0], key, &key_length) || key_length != PIPEFILL_PATTERN_KEY_BYTES) return false;
  if (napi_get_value_double(env, argv[1], &at) != napi_ok || !(at >= 0) || at > 9007199254740991.0 || at != (double)(uint64_t)at) return false;
  if (!buffer_arg(env, argv[2], data, length)) return false;
  *offset = (uint64_t)at;
  return true;
}

/* Reads (key, offset, buffer) and returns a cipher context positioned at `offset`; NULL once it has thrown. */
static EVP_CIPHER_CTX* pattern_start(napi_env env, napi_callback_info info, const char* usage, unsigned char** data, size_t* length) {
  unsigned char* key;
  uint64_t offset;
  if (!pattern_args(env, info, &key, &offset, data, length)) {
    throw_error(env, usage);
    return NULL;
  }
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == NULL || pipefill_pattern_seek(ctx, key, offset) != 1) {
    EVP_CIPHER_CTX_free(ctx);
    throw_error(env, "OpenSSL refused AES-128-CTR for the test pattern");
    return NULL;
  }
  return ctx;
}

static napi_value PatternFill(napi_env env, napi_callback_info info) {
  unsigned char* target;
  size_t length;
  EVP_CIPHER_CTX* ctx = pattern_start(env, info, "patternFill(key, offset, target): a 16-byte key, a whole offset >= 0, a Buffer", &target, &length);
  if (ctx == NULL) return NULL;
  const bool ok = pipefill_pattern_next(ctx, target, length) == 1;
  EVP_CIPHER_CTX_free(ctx);
  if (!ok) return throw_error(env, "OpenSSL refused AES-128-CTR for the test pattern");
  return NULL;
}

static napi_value PatternMatches(napi_env env, napi_callback_info info) {
  unsigned char* data;
  size_t length;
  EVP_CIPHER_CTX* ctx = pattern_start(env, info, "patternMatches(key, offset, data): a 16-byte key, a whole offset >= 0, a Buffer", &data, &length);
  if (ctx == NULL) return NULL;
  unsigned char expected[MATCH_STEP_BYTES];
  bool same = true;
  bool refused = false;
  for (size_t done = 0; same && done < length; done += MATCH_STEP_BYTES) {
    const size_t step = length - done < MATCH_STEP_BYTES ? length - done : MATCH_STEP_BYTES;
    if (pipefill_pattern_next(ctx, expected, step) != 1) {
      refused = true;
      break;
    }
    same = memcmp(expected, data + done, step) == 0;
  }
  EVP_CIPHER_CTX_free(ctx);
  if (refused) return throw_error(env, "OpenSSL refused AES-128-CTR for the test pattern");
  napi_value result;
  CHECK(napi_get_boolean(env, same, &result));
  return result;
}

static bool export_function(napi_env env, napi_value exports, const char* name, napi_callback body) {
  napi_value fn;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, body, NULL, &fn) == napi_ok && napi_set_named_property(env, exports, name, fn) == napi_ok;
}

static napi_value Init(napi_env env, napi_value exports) {
  if (!export_function(env, exports, "open", Open) || !export_function(env, exports, "seal", Seal) || !export_function(env, exports, "patternFill", PatternFill) || !export_function(env, exports, "patternMatches", PatternMatches)) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
