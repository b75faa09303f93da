// Pipefill's test pattern (src/copy/pattern.ts), made in C: the AES-128-CTR
// keystream of a file's 16-byte key whose counter block is the 64-bit
// big-endian number of the 16-byte block (the upper 8 bytes zero), from any
// byte offset. Used by the sender addon (the bytes of a WRITE, made as they
// are sent) and the crypto addon (a buffer filled in place, a reply checked
// without a copy). Both build it with the OpenSSL Node carries and exports.
//
// Made over zeros in the caller's memory: no allocation, and at OpenSSL's
// own speed (~8 GB/s with AES-NI on a cache-sized slice, `openssl speed`),
// where Node's Cipher returns every piece in fresh memory.

#ifndef PIPEFILL_PATTERN_KEYSTREAM_H
#define PIPEFILL_PATTERN_KEYSTREAM_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PIPEFILL_PATTERN_KEY_BYTES 16
#define PIPEFILL_PATTERN_BLOCK_BYTES 16
/* One EVP update at most: its length is an int. */
#define PIPEFILL_PATTERN_UPDATE_BYTES ((size_t)1 << 30)

/* Positions `ctx` at byte `offset` of the pattern of `key`. Returns 1, or 0 when OpenSSL refuses. */
static inline int pipefill_pattern_seek(EVP_CIPHER_CTX* ctx, const unsigned char* key, uint64_t offset) {
  const uint64_t block = offset / PIPEFILL_PATTERN_BLOCK_BYTES;
  const int skip = (int)(offset % PIPEFILL_PATTERN_BLOCK_BYTES);
  unsigned char counter[PIPEFILL_PATTERN_BLOCK_BYTES];
  memset(counter, 0, sizeof counter);
  for (int i = 0; i < 8; ++i) counter[PIPEFILL_PATTERN_BLOCK_BYTES - 1 - i] = (unsigned char)(block >> (8 * i));
  if (EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), NULL, key, counter) != 1) return 0;
  if (skip == 0) return 1;
  /* CTR keeps its place within a block across updates: spend the bytes before `offset`. */
  unsigned char spent[PIPEFILL_PATTERN_BLOCK_BYTES];
  memset(spent, 0, sizeof spent);
  int made = 0;
  return EVP_EncryptUpdate(ctx, spent, &made, spent, skip) == 1 && made == skip;
}

/* Writes the next `length` bytes of the pattern at `out`, in place. Returns 1, or 0 when OpenSSL refuses. */
static inline int pipefill_pattern_next(EVP_CIPHER_CTX* ctx, unsigned char* out, size_t length) {
  while (length > 0) {
    const size_t step = length < PIPEFILL_PATTERN_UPDATE_BYTES ? length : PIPEFILL_PATTERN_UPDATE_BYTES;
    int made = 0;
    memset(out, 0, step);
    if (EVP_EncryptUpdate(ctx, out, &made, out, (int)step) != 1 || made != (int)step) return 0;
    out += step;
    length -= step;
  }
  return 1;
}

#endif
