// Device and stack files: the input's first byte picks which, the rest is the file.
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string file = fuzz::text(data + 1, size - 1);
  try {
    if (data[0] & 1) {
      core::hw::parseStackJson(file, "/fuzz/stack.json");
    } else {
      core::hw::parseDeviceJson(file, "/fuzz/device.json");
    }
  } catch (const core::util::Error&) {
  }
  return 0;
}
