// Plugin manifests, after the Vulkan loader's ICD manifests:
//   { "file_format_version": "1.0.0",
//     "backend": { "name": "example_npu", "library_path": "libexample_npu.so", "abi_version": "1.0" } }
// library_path is relative to the manifest's directory unless absolute. Format 1.1 may name a
// Python backend instead, served by opcert's Python bridge (docs/PYTHON.md):
//     "backend": { "name": "my_ops", "python": "my_ops.backend:backend", "abi_version": "1.3" }
#pragma once

#include <string>
#include <string_view>

namespace opcert {

struct PluginManifest {
  std::string manifest_path;  // the file it was read from
  std::string backend_name;
  std::string library_path;   // resolved against the manifest's directory; empty for a Python backend
  std::string python_entry;   // format 1.1: "module:attr" of a Python backend, served by the bridge
  int abi_major = 0;
  int abi_minor = 0;
};

/// The manifest file format versions this host reads (major must match).
inline constexpr int kManifestFormatMajor = 1;
inline constexpr int kManifestFormatMinor = 1;

/// Parses a manifest's text. Throws InputError "<path>:<line>:<column>: <what>" for malformed
/// JSON, and "<path>: <what>" for a missing or mistyped field or an unsupported format version.
PluginManifest parse_manifest(std::string_view text, const std::string& path);

/// Reads and parses a manifest file; a file that cannot be read is an InputError too.
PluginManifest read_manifest(const std::string& path);

}  // namespace opcert
