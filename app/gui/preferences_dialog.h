#pragma once
// Edit ▸ Preferences: theme, export folder and the presentation-mode size.
#include <QDialog>

#include "widgets/chart_theme.h"

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;

namespace app::gui {

class PreferencesDialog : public QDialog {
  Q_OBJECT
public:
  explicit PreferencesDialog(QWidget* parent = nullptr);

  void setValues(widgets::ChartTheme theme, const QString& exportFolder, double presentationScale);
  widgets::ChartTheme theme() const;
  QString exportFolder() const;
  double presentationScale() const;

private:
  QComboBox* m_theme;
  QLineEdit* m_folder;
  QDoubleSpinBox* m_scale;
};

}  // namespace app::gui
