#pragma once
// Property names ChartFrame and its charts store on their plottables (chart_frame*.cpp,
// chart_base*.cpp only).
namespace widgets::chart_keys {

inline constexpr char kKeyProperty[] = "seriesKey";  // the series' identity
inline constexpr char kReuseKeyProperty[] = "reuseKey";  // a streamed line's identity across refreshes
inline constexpr char kXUnitProperty[] = "xUnit";
inline constexpr char kYUnitProperty[] = "yUnit";
inline constexpr char kReferenceKey[] = "reference";  // seriesKey of published reference marks

}  // namespace widgets::chart_keys
