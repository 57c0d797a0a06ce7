#pragma once
// File ▸ Export Options…: the size (px, cm or in), resolution and font scale every chart
// export uses, with presets (screen, slide, one- and two-column paper). Shows what the
// choice makes (PNG pixels, page size, text size) and refuses what cannot be drawn.
#include <QDialog>

#include "widgets/export_options.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace widgets {

class ExportOptionsDialog : public QDialog {
  Q_OBJECT
public:
  explicit ExportOptionsDialog(const ExportOptions& options, QWidget* parent = nullptr);

  ExportOptions options() const;
  void setOptions(const ExportOptions& options);
  // Picks a preset by id ("one-column"); false when there is none.
  bool applyPreset(const QString& id);
  QString describe() const;   // the line under the fields (tests read it)

private:
  void onFieldEdited();
  void onUnitChanged();
  void refresh();

  QComboBox* m_preset;
  QDoubleSpinBox* m_width;
  QDoubleSpinBox* m_height;
  QComboBox* m_unit;
  QSpinBox* m_dpi;
  QDoubleSpinBox* m_fontScale;
  QLabel* m_result;
  QPushButton* m_ok;
  ExportOptions::Unit m_shownUnit = ExportOptions::Unit::Px;
  bool m_updating = false;
};

}  // namespace widgets
