#include "core/sim/input_pipeline.h"

#include <algorithm>

namespace core::sim {

double hostSecondsPerSample(const DataFeed& f, const ExecutionUnit& u) {
  switch (f.format) {
    case data::SampleFormat::Synthetic: return 0.0;
    case data::SampleFormat::Jpeg:
      return f.storedBytesPerSample / std::max(1.0, u.hostJpegBytesPerSecondPerVcpu);
    case data::SampleFormat::RawPixels:
    case data::SampleFormat::TokenIds:
      return std::max(f.storedBytesPerSample, f.inputBytesPerSample) / kRawCopyBytesPerSecondPerVcpu;
  }
  return 0.0;
}

double inputSecondsPerStep(const DataFeed& f, const ExecutionUnit& u, double perDeviceBatch) {
  if (f.format == data::SampleFormat::Synthetic) return 0.0;
  if (f.format == data::SampleFormat::Jpeg && u.deviceDecode && u.deviceJpegBytesPerSecond > 0) {
    // DALI: the host only reads the files; decoding and augmentation run on the device, which
    // receives the compressed bytes.
    const double decode = perDeviceBatch * f.storedBytesPerSample / u.deviceJpegBytesPerSecond;
    const double sent = u.hostLinkBytesPerSecond > 0 ? perDeviceBatch * f.storedBytesPerSample / u.hostLinkBytesPerSecond : 0.0;
    return std::max(decode, sent);
  }
  const double host = perDeviceBatch * hostSecondsPerSample(f, u) / std::max(1, u.hostVcpus);
  const double link = u.hostLinkBytesPerSecond > 0 ? perDeviceBatch * f.inputBytesPerSample / u.hostLinkBytesPerSecond : 0.0;
  return std::max(host, link);
}

}  // namespace core::sim
