// Byte sizes as people write them on a command line ("256M") and read them in a table ("1.5K"):
// powers of 1024, as nccl-tests and the --max-memory flags mean them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opcert {

/// "4096", "1K", "256M", "1G" (powers of 1024; a trailing "B" or "iB" is allowed) in bytes.
/// Throws InputError naming `flag` and what to write instead.
uint64_t parse_byte_size(std::string_view text, std::string_view flag);

/// Short form for tables: "1K", "256M", "1.5G" (powers of 1024); plain bytes under 1 KiB.
std::string format_byte_size(double bytes);

}  // namespace opcert
