#include "certify/bundle_signature.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "model/input_error.h"

namespace opcert {
namespace {

struct KeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct ContextDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyDeleter>;
using Context = std::unique_ptr<EVP_MD_CTX, ContextDeleter>;

Key read_key(const std::string& path, bool private_key) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) throw InputError(fmt::format("cannot read key file '{}'", path));
  Key key(private_key ? PEM_read_PrivateKey(f, nullptr, nullptr, nullptr) : PEM_read_PUBKEY(f, nullptr, nullptr, nullptr));
  std::fclose(f);
  if (!key || EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519)
    throw InputError(fmt::format("'{}' is not an Ed25519 {} key in PEM (make one with: openssl genpkey -algorithm "
                                 "ed25519 -out key.pem; its public half: openssl pkey -in key.pem -pubout)",
                                 path, private_key ? "private" : "public"));
  return key;
}

std::string hex(const unsigned char* bytes, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

std::vector<unsigned char> from_hex(const std::string& text) {
  std::vector<unsigned char> bytes;
  if (text.size() % 2 != 0) return {};
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    const int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return {};
    bytes.push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return bytes;
}

}  // namespace

std::string sign_ed25519(const std::string& key_path, const std::string& message) {
  const Key key = read_key(key_path, true);
  Context ctx(EVP_MD_CTX_new());
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(message.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, data, message.size()) != 1)
    throw InputError(fmt::format("signing with '{}' failed", key_path));
  std::vector<unsigned char> signature(length);
  if (EVP_DigestSign(ctx.get(), signature.data(), &length, data, message.size()) != 1)
    throw InputError(fmt::format("signing with '{}' failed", key_path));
  return hex(signature.data(), length);
}

std::string ed25519_fingerprint(const std::string& key_path, bool private_key) {
  const Key key = read_key(key_path, private_key);
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(key.get(), &der);
  if (length <= 0) throw InputError(fmt::format("cannot encode the public key of '{}'", key_path));
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der, static_cast<std::size_t>(length), digest);
  OPENSSL_free(der);
  return "SHA256:" + hex(digest, sizeof digest);
}

bool verify_ed25519(const std::string& public_key_path, const std::string& message, const std::string& signature_hex) {
  const Key key = read_key(public_key_path, false);
  const auto signature = from_hex(signature_hex);
  if (signature.empty()) return false;
  Context ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                          reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
}

}  // namespace opcert
