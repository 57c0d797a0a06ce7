#include "app/gui/preferences_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>

namespace app::gui {

PreferencesDialog::PreferencesDialog(QWidget* parent)
    : QDialog(parent), m_theme(new QComboBox(this)), m_folder(new QLineEdit(this)), m_scale(new QDoubleSpinBox(this)) {
  setWindowTitle(tr("Preferences"));
  m_theme->addItem(tr("Light"), static_cast<int>(widgets::ChartTheme::Light));
  m_theme->addItem(tr("Dark"), static_cast<int>(widgets::ChartTheme::Dark));
  auto* browse = new QToolButton(this);
  browse->setText(tr("…"));
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export folder"), m_folder->text());
    if (!dir.isEmpty()) m_folder->setText(dir);
  });
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(m_folder, 1);
  folderRow->addWidget(browse);
  m_scale->setRange(1.0, 3.0);
  m_scale->setSingleStep(0.1);
  m_scale->setSuffix(tr("×"));
  m_scale->setToolTip(tr("How much larger fonts and lines are in presentation mode (F11)"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* form = new QFormLayout(this);
  form->addRow(tr("&Theme:"), m_theme);
  form->addRow(tr("&Export folder:"), folderRow);
  form->addRow(tr("&Presentation size:"), m_scale);
  form->addRow(buttons);
}

void PreferencesDialog::setValues(widgets::ChartTheme theme, const QString& exportFolder, double presentationScale) {
  m_theme->setCurrentIndex(m_theme->findData(static_cast<int>(theme)));
  m_folder->setText(exportFolder);
  m_scale->setValue(presentationScale);
}

widgets::ChartTheme PreferencesDialog::theme() const { return static_cast<widgets::ChartTheme>(m_theme->currentData().toInt()); }
QString PreferencesDialog::exportFolder() const { return m_folder->text().trimmed(); }
double PreferencesDialog::presentationScale() const { return m_scale->value(); }

}  // namespace app::gui
