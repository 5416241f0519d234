// Ed25519 signatures of a bundle's checksum list, through OpenSSL: the vendor signs with its
// private key (PEM), the customer checks with the public key (PEM) the vendor published. The
// manifest names the key by its fingerprint, so a signature by another key is caught even when it
// verifies.
#pragma once

#include <string>

namespace opcert {

/// The signature of `message` by the Ed25519 private key in the PEM file `key_path`, as lowercase
/// hex. Throws InputError naming the file when it cannot be read or is not an Ed25519 private key.
std::string sign_ed25519(const std::string& key_path, const std::string& message);

/// "SHA256:<hex>" of the DER public key: of a private key file (`private_key` true) or a public one.
/// Throws InputError as above.
std::string ed25519_fingerprint(const std::string& key_path, bool private_key);

/// Whether `signature_hex` is the signature of `message` by the public key in the PEM file.
/// Throws InputError when the key file is unusable; false for any signature that does not verify.
bool verify_ed25519(const std::string& public_key_path, const std::string& message, const std::string& signature_hex);

}  // namespace opcert
