// The package a backend's code comes from when its library file does not hold it all (ABI 1.3:
// a Python distribution behind the bridge, docs/PYTHON.md "Provenance"); empty otherwise. Read
// from the backend by the loader, recorded in reports and certificates beside the library's digest.
#pragma once

#include <string>

namespace opcert {

struct PackageIdentity {
  std::string name;
  std::string version;
  std::string sha256;  // over the package's files (docs/ABI.md, "Packages")

  bool empty() const { return name.empty(); }
};

}  // namespace opcert
