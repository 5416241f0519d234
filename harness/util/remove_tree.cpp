#include "util/remove_tree.h"

#include <ftw.h>
#include <sys/stat.h>

#include <cstdio>

namespace opcert {
namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  return std::remove(path) == 0 ? 0 : -1;  // depth first: a folder's files are gone before it
}

}  // namespace

bool remove_tree(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return true;
  constexpr int kOpenFolders = 16;
  (void)::nftw(path.c_str(), remove_entry, kOpenFolders, FTW_DEPTH | FTW_PHYS);
  return ::lstat(path.c_str(), &st) != 0;
}

}  // namespace opcert
