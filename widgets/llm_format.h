#pragma once
// How the LLM planner writes its figures, on its charts and in its table alike.
#include <QString>

namespace widgets::llm_format {

QString count(double v);          // "1.23 M", "45.6 k", "–" when not finite
QString duration(double seconds);  // "42 s", "3.5 min", "2.0 h", "12.3 days", "–"
QString gib(double bytes);         // "79.4"

}  // namespace widgets::llm_format
