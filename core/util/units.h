#pragma once
// Units spelled once: the binary sizes the device files, the memory model and every display use
// (a device file's mem_gib is GiB; a report's bytes are bytes).
namespace core::util {

inline constexpr double kBytesPerKib = 1024.0;
inline constexpr double kBytesPerMib = 1024.0 * 1024;
inline constexpr double kBytesPerGib = 1024.0 * 1024 * 1024;

inline constexpr double gibToBytes(double gib) { return gib * kBytesPerGib; }
inline constexpr double bytesToGib(double bytes) { return bytes / kBytesPerGib; }

}  // namespace core::util
