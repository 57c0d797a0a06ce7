#include "widgets/export_options_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace widgets {
namespace {

constexpr double kCmPerInch = 2.54;

// A length in one unit converted to another, px at `dpi`.
double convert(double value, ExportOptions::Unit from, ExportOptions::Unit to, int dpi) {
  using U = ExportOptions::Unit;
  double inches = from == U::Cm ? value / kCmPerInch : from == U::In ? value : value / dpi;
  return to == U::Cm ? inches * kCmPerInch : to == U::In ? inches : inches * dpi;
}

void styleLength(QDoubleSpinBox* box, ExportOptions::Unit unit) {
  using U = ExportOptions::Unit;
  box->setDecimals(unit == U::Px ? 0 : 2);
  box->setSingleStep(unit == U::Px ? 10 : unit == U::Cm ? 0.5 : 0.25);
  box->setRange(0, unit == U::Px ? 100000 : unit == U::Cm ? 500 : 200);
  box->setSuffix(" " + unitName(unit));
}

}  // namespace

ExportOptionsDialog::ExportOptionsDialog(const ExportOptions& options, QWidget* parent)
    : QDialog(parent),
      m_preset(new QComboBox(this)),
      m_width(new QDoubleSpinBox(this)),
      m_height(new QDoubleSpinBox(this)),
      m_unit(new QComboBox(this)),
      m_dpi(new QSpinBox(this)),
      m_fontScale(new QDoubleSpinBox(this)),
      m_result(new QLabel(this)) {
  setWindowTitle(tr("Export Options"));
  for (const ExportPreset& p : exportPresets()) m_preset->addItem(p.title, p.id);
  m_preset->addItem(tr("Custom"), QString());
  for (ExportOptions::Unit u : {ExportOptions::Unit::Px, ExportOptions::Unit::Cm, ExportOptions::Unit::In})
    m_unit->addItem(unitName(u), static_cast<int>(u));
  m_dpi->setRange(ExportOptions::kMinDpi, ExportOptions::kMaxDpi);
  m_dpi->setSuffix(tr(" dpi"));
  m_dpi->setToolTip(tr("Resolution of PNG images (PDF and SVG are vectors at the physical size)"));
  m_fontScale->setRange(ExportOptions::kMinFontScale, ExportOptions::kMaxFontScale);
  m_fontScale->setSingleStep(0.1);
  m_fontScale->setDecimals(2);
  m_fontScale->setPrefix(QStringLiteral("×"));
  m_fontScale->setToolTip(tr("1 = the charts' 9 pt text at the physical size"));
  m_result->setWordWrap(true);

  auto* sizeRow = new QHBoxLayout;
  sizeRow->addWidget(m_width, 1);
  sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
  sizeRow->addWidget(m_height, 1);
  sizeRow->addWidget(m_unit);
  auto* form = new QFormLayout;
  form->addRow(tr("Preset:"), m_preset);
  form->addRow(tr("Size:"), sizeRow);
  form->addRow(tr("Resolution:"), m_dpi);
  form->addRow(tr("Font size:"), m_fontScale);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_ok = buttons->button(QDialogButtonBox::Ok);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_result);
  layout->addWidget(buttons);

  connect(m_preset, &QComboBox::activated, this, [this] {
    const QString id = m_preset->currentData().toString();
    if (!id.isEmpty()) applyPreset(id);
  });
  for (QDoubleSpinBox* box : {m_width, m_height, m_fontScale})
    connect(box, &QDoubleSpinBox::valueChanged, this, &ExportOptionsDialog::onFieldEdited);
  connect(m_dpi, &QSpinBox::valueChanged, this, &ExportOptionsDialog::onFieldEdited);
  connect(m_unit, &QComboBox::currentIndexChanged, this, &ExportOptionsDialog::onUnitChanged);
  setOptions(options);
}

ExportOptions ExportOptionsDialog::options() const {
  ExportOptions o;
  o.width = m_width->value();
  o.height = m_height->value();
  o.unit = m_shownUnit;
  o.dpi = m_dpi->value();
  o.fontScale = m_fontScale->value();
  return o;
}

void ExportOptionsDialog::setOptions(const ExportOptions& options) {
  m_updating = true;
  m_shownUnit = options.unit;
  m_unit->setCurrentIndex(m_unit->findData(static_cast<int>(options.unit)));
  styleLength(m_width, options.unit);
  styleLength(m_height, options.unit);
  m_width->setValue(options.width);
  m_height->setValue(options.height);
  m_dpi->setValue(options.dpi);
  m_fontScale->setValue(options.fontScale);
  m_updating = false;
  refresh();
}

bool ExportOptionsDialog::applyPreset(const QString& id) {
  for (const ExportPreset& p : exportPresets()) {
    if (p.id == id) {
      setOptions(p.options);
      return true;
    }
  }
  return false;
}

void ExportOptionsDialog::onFieldEdited() {
  if (!m_updating) refresh();
}

// A new unit keeps the physical size: 2000 px at 192 dpi become 26.46 cm.
void ExportOptionsDialog::onUnitChanged() {
  if (m_updating) return;
  const auto to = static_cast<ExportOptions::Unit>(m_unit->currentData().toInt());
  ExportOptions o = options();
  o.width = convert(o.width, m_shownUnit, to, o.dpi);
  o.height = convert(o.height, m_shownUnit, to, o.dpi);
  o.unit = to;
  setOptions(o);
}

QString ExportOptionsDialog::describe() const { return m_result->text(); }

void ExportOptionsDialog::refresh() {
  const ExportOptions o = options();
  const ExportPreset* preset = matchingExportPreset(o);
  {
    const QSignalBlocker block(m_preset);
    m_preset->setCurrentIndex(m_preset->findData(preset ? preset->id : QString()));
  }
  const QString why = o.validate();
  m_ok->setEnabled(why.isEmpty());
  if (!why.isEmpty()) {
    m_result->setText(tr("<span style='color:#c03010'>Cannot export at this size: %1.</span>").arg(why.toHtmlEscaped()));
    return;
  }
  const QSize image = o.imageSize();
  const QSizeF points = o.pagePoints();
  m_result->setText(tr("PNG: %1 × %2 px at %3 dpi. PDF and SVG: %4 × %5 cm. Text: %6 pt (titles %7 pt).")
                        .arg(image.width()).arg(image.height()).arg(o.dpi)
                        .arg(points.width() / 72.0 * kCmPerInch, 0, 'f', 1)
                        .arg(points.height() / 72.0 * kCmPerInch, 0, 'f', 1)
                        .arg(9.0 * o.fontScale, 0, 'g', 3)
                        .arg(9.0 * 1.2 * o.fontScale, 0, 'g', 3));
}

}  // namespace widgets
