#include "widgets/hardware_panel.h"
#include "widgets/run_data.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOption>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/sim/pricing.h"
#include "widgets/palette.h"

namespace widgets {
namespace {

using core::util::Precision;

enum Column { kDevice, kCount, kPrice, kPrecision, kEstimate, kColumns };
constexpr int kMaxPodDevices = 4096;
constexpr int kAsRun = -1;
constexpr int kDefaultVcpus = 8;     // when the device file names no default
constexpr int kMaxVcpus = 256;       // when the device file names no largest shape

int defaultVcpus(const core::hw::DeviceSpec& s) { return s.vcpusDefault > 0 ? s.vcpusDefault : kDefaultVcpus; }

QString money(double usd) { return formatMoney(usd) + QStringLiteral("/h"); }

QString deviceLabel(const core::hw::DeviceSpec& spec) {
  if (spec.measured) return QObject::tr("this machine");
  return QString::fromStdString(spec.id);
}

}  // namespace

bool HardwarePanel::isScalableCpu(const core::hw::DeviceSpec& spec) {
  return spec.kind == core::hw::DeviceKind::Cpu && !spec.measured;
}

HardwarePanel::HardwarePanel(QWidget* parent) : QWidget(parent) {
  setObjectName("HardwarePanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_table = new QTableWidget(0, kColumns, this);
  m_table->setObjectName("deviceTable");
  m_table->setHorizontalHeaderLabels({tr("Device"), tr("Count"), tr("Price"), tr("Prec."), tr("≈ Epoch")});
  m_table->horizontalHeaderItem(kPrecision)->setToolTip(tr("Precision the device runs at"));
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  m_table->horizontalHeaderItem(kCount)->setToolTip(tr("Devices in synchronous data parallel, or vCPUs for a cloud CPU"));
  m_table->horizontalHeaderItem(kEstimate)->setToolTip(tr("Simulated at the current settings; hover for details"));
  m_table->verticalHeader()->hide();
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setFocusPolicy(Qt::NoFocus);
  QHeaderView* header = m_table->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setSectionResizeMode(kDevice, QHeaderView::ResizeToContents);
  header->setStretchLastSection(true);
  const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
  header->resizeSection(kCount, 5 * em + em / 2);
  header->resizeSection(kPrice, 8 * em);
  header->resizeSection(kPrecision, 6 * em + em / 2);
  m_table->setWordWrap(false);
  layout->addWidget(m_table, 1);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  m_note->setObjectName("hardwareNote");
  m_note->hide();
  layout->addWidget(m_note);

  connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (!m_updating && item->column() == kDevice) Q_EMIT choicesChanged();
  });
}

int HardwarePanel::rowOf(const QString& deviceId) const {
  for (int r = 0; r < static_cast<int>(m_rows.size()); ++r)
    if (QString::fromStdString(m_rows[static_cast<std::size_t>(r)].spec.id) == deviceId) return r;
  return -1;
}

QStringList HardwarePanel::deviceIds() const {
  QStringList ids;
  for (const auto& r : m_rows) ids << QString::fromStdString(r.spec.id);
  return ids;
}

void HardwarePanel::setCatalog(const std::vector<core::hw::DeviceSpec>& devices) {
  QVector<core::experiment::DeviceChoice> previous;
  for (int r = 0; r < m_table->rowCount(); ++r) previous << readRow(r);
  const QVector<core::experiment::DeviceChoice> checked = choices();

  m_updating = true;
  m_rows.clear();
  m_table->setRowCount(0);
  for (const auto& spec : devices) {
    m_rows.push_back({spec, {}});
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    buildRow(row, spec);
  }
  for (const auto& c : previous) {
    const int row = rowOf(QString::fromStdString(c.deviceId));
    if (row >= 0) applyChoice(row, c, checked.contains(c));
  }
  m_updating = false;
  fitColumns();
  setHostMeasured(m_hostMeasured);
  Q_EMIT choicesChanged();
}

// The count, price and precision columns as wide as their widest editor ("16 vCPU",
// "$0.0398/h", "$1.10/h pre."), so no value is cut; the estimate column takes the rest.
// Measured from the texts through the style (an editor's sizeHint reserves room for far
// longer ones): a combo box as wide as its shown item, a count as wide as its value.
void HardwarePanel::fitColumns() {
  QHeaderView* header = m_table->horizontalHeader();
  const QFontMetrics metrics(m_table->font());
  for (int column : {kCount, kPrice, kPrecision}) {
    int widest = header->sectionSizeHint(column);
    for (int row = 0; row < m_table->rowCount(); ++row) {
      QWidget* w = m_table->cellWidget(row, column);
      if (auto* combo = qobject_cast<QComboBox*>(w)) {
        // The shown item (the popup widens itself for longer ones; a choice refits).
        const int text = metrics.horizontalAdvance(combo->currentText());
        QStyleOptionComboBox opt;
        opt.initFrom(combo);
        opt.frame = combo->hasFrame();
        widest = std::max(widest, combo->style()->sizeFromContents(QStyle::CT_ComboBox, &opt,
                                                                  QSize(text, metrics.height()), combo).width());
      } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
        const int text =
            metrics.horizontalAdvance(spin->prefix() + QString::number(std::max(spin->value(), 99)) + spin->suffix());
        QStyleOptionSpinBox opt;
        opt.initFrom(spin);
        opt.frame = spin->hasFrame();
        opt.buttonSymbols = spin->buttonSymbols();
        opt.subControls = QStyle::SC_SpinBoxFrame | QStyle::SC_SpinBoxEditField | QStyle::SC_SpinBoxUp | QStyle::SC_SpinBoxDown;
        widest = std::max(widest, spin->style()->sizeFromContents(QStyle::CT_SpinBox, &opt,
                                                                 QSize(text + 4, metrics.height()), spin).width());
      }
    }
    header->resizeSection(column, widest);
  }
}

void HardwarePanel::buildRow(int row, const core::hw::DeviceSpec& spec) {
  const QString id = QString::fromStdString(spec.id);
  auto* name = new QTableWidgetItem(deviceLabel(spec));
  name->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
  name->setCheckState(Qt::Unchecked);
  name->setData(Qt::UserRole, id);
  QPixmap swatch(10, 10);
  swatch.fill(deviceColor(id, m_theme));
  name->setIcon(QIcon(swatch));
  QString tip = QString::fromStdString(spec.name);
  if (!spec.notes.empty()) tip += "\n" + QString::fromStdString(spec.notes);
  if (!spec.source.empty()) tip += "\n" + tr("Source: %1").arg(QString::fromStdString(spec.source));
  name->setToolTip(tip);
  m_table->setItem(row, kDevice, name);

  auto* count = new QSpinBox(m_table);
  count->setObjectName("count_" + id);
  count->setFrame(false);
  if (isScalableCpu(spec)) {
    count->setRange(1, spec.vcpusMax > 0 ? spec.vcpusMax : kMaxVcpus);
    count->setValue(defaultVcpus(spec));
    count->setSuffix(tr(" vCPU"));
  } else {
    count->setRange(1, kMaxPodDevices);  // up to pods: 256 x H100, 64 x tpu-v5p-8, 1,024 x GB200
    count->setValue(1);
    count->setPrefix(tr("× "));
    count->setEnabled(!spec.measured);
  }
  m_table->setCellWidget(row, kCount, count);

  auto* price = new QComboBox(m_table);
  price->setObjectName("price_" + id);
  price->setFrame(false);
  // Editable: the user types the $/h they pay (a reservation, a negotiated rate, their own
  // cluster's cost); it replaces the catalog's for this device and is marked as theirs.
  price->setEditable(true);
  price->setInsertPolicy(QComboBox::NoInsert);
  price->lineEdit()->setPlaceholderText(tr("your $/h"));
  if (spec.usdPerHourOnDemand) {
    price->addItem(money(*spec.usdPerHourOnDemand), false);
    price->setItemData(price->count() - 1, tr("on-demand price"), Qt::ToolTipRole);
  }
  if (spec.usdPerHourPreemptible) {
    price->addItem(tr("%1 pre.").arg(money(*spec.usdPerHourPreemptible)), true);
    price->setItemData(price->count() - 1, tr("preemptible (spot) price"), Qt::ToolTipRole);
  }
  if (price->count() == 0) price->addItem(tr("no price"), false);
  QString seller = spec.priceSeller.empty() ? QString() : QString::fromStdString(spec.priceSeller) + QStringLiteral(", ");
  if (!spec.usdPerHourOnDemand)
    price->setToolTip(tr("No price found for this device%1. Type the $/h you pay per device to use your own price.")
                          .arg(spec.priceDate.empty() ? QString() : tr(" (as of %1)").arg(QString::fromStdString(spec.priceDate))));
  else
    price->setToolTip(tr("Price kind: on-demand (%1as of %2), or preemptible (\"pre.\", spot). Type the $/h you pay "
                         "per device to use your own price.")
                          .arg(seller, spec.priceDate.empty() ? tr("no date") : QString::fromStdString(spec.priceDate)));
  m_table->setCellWidget(row, kPrice, price);
  showVmPrice(row);

  auto* precision = new QComboBox(m_table);
  precision->setObjectName("precision_" + id);
  precision->setFrame(false);
  precision->addItem(tr("as run"), kAsRun);
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16, Precision::FP8, Precision::FP4})
    if (core::hw::peakTflops(spec, p)) precision->addItem(QString::fromLatin1(core::util::precisionName(p)), static_cast<int>(p));
  precision->setToolTip(tr("\"as run\": the experiment's precision where the device has it, else its native one"));
  m_table->setCellWidget(row, kPrecision, precision);

  m_table->setItem(row, kEstimate, new QTableWidgetItem);

  connect(count, &QSpinBox::valueChanged, this, [this, row] {
    showVmPrice(row);
    if (m_updating) return;
    fitColumns();
    Q_EMIT choicesChanged();
  });
  for (QComboBox* c : {price, precision})
    connect(c, &QComboBox::currentIndexChanged, this, [this] {
      if (m_updating) return;
      fitColumns();
      Q_EMIT choicesChanged();
    });
  // Picking a catalog price drops a typed one; typing a number sets it.
  connect(price, &QComboBox::activated, this, [this, price] {
    if (!price->property(kUserPriceProperty).isValid()) return;
    setUserPrice(price, std::nullopt);
    if (!m_updating) Q_EMIT choicesChanged();
  });
  connect(price->lineEdit(), &QLineEdit::editingFinished, this, [this, price] {
    const QString text = price->lineEdit()->text();
    if (text == price->itemText(price->currentIndex()) || text == userPriceText(price)) return;
    const std::optional<double> typed = parseUserPrice(text);
    setUserPrice(price, typed);
    if (!typed && !text.trimmed().isEmpty())
      price->setToolTip(tr("\"%1\" is not a price: type the $/h per device, e.g. 1.80").arg(text));
    if (!m_updating) {
      fitColumns();
      Q_EMIT choicesChanged();
    }
  });
}

std::optional<double> HardwarePanel::parseUserPrice(const QString& text) {
  QString t = text.trimmed();
  for (const QString& noise : {QStringLiteral("\u270E"), QStringLiteral("/h"), QStringLiteral("$"), QStringLiteral("USD")})
    t.remove(noise, Qt::CaseInsensitive);
  bool ok = false;
  const double v = QLocale::c().toDouble(t.trimmed(), &ok);
  if (!ok) return std::nullopt;
  try {
    core::sim::checkUserPrice(v, "price");
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return v;
}

QString HardwarePanel::userPriceText(const QComboBox* price) {
  const QVariant v = price->property(kUserPriceProperty);
  // A pencil, not "(yours)": the cell keeps its width at 1280x800 (the words pushed the
  // estimate column out of view); the tooltip says it in words.
  return v.isValid() ? money(v.toDouble()) + QStringLiteral(" \u270E") : QString();
}

void HardwarePanel::setUserPrice(QComboBox* price, std::optional<double> usdPerHour) {
  price->setProperty(kUserPriceProperty, usdPerHour ? QVariant(*usdPerHour) : QVariant());
  price->lineEdit()->setText(usdPerHour ? userPriceText(price) : price->itemText(price->currentIndex()));
  QFont f = price->font();
  f.setItalic(usdPerHour.has_value());
  price->lineEdit()->setFont(f);
  price->lineEdit()->setToolTip(usdPerHour ? tr("Your price, typed here: it replaces the catalog's in every cost "
                                                "and is marked \"your price\" in the charts and exports. Pick a "
                                                "catalog price from the list to drop it.")
                                           : QString());
}

// A cloud CPU's file prices one vCPU-hour; the column shows what the chosen VM costs an hour
// ("$0.159/h" for 4 vCPUs at $0.0398), and its tooltip the arithmetic.
void HardwarePanel::showVmPrice(int row) {
  const auto& spec = m_rows[static_cast<std::size_t>(row)].spec;
  auto* price = qobject_cast<QComboBox*>(m_table->cellWidget(row, kPrice));
  auto* count = qobject_cast<QSpinBox*>(m_table->cellWidget(row, kCount));
  if (!isScalableCpu(spec) || !price || !count) return;
  const int vcpus = count->value();
  int i = 0;
  QStringList perVcpu;
  if (spec.usdPerHourOnDemand) {
    price->setItemText(i++, money(*spec.usdPerHourOnDemand * vcpus));
    perVcpu << tr("on-demand %1 per vCPU").arg(money(*spec.usdPerHourOnDemand));
  }
  if (spec.usdPerHourPreemptible) {
    price->setItemText(i++, tr("%1 pre.").arg(money(*spec.usdPerHourPreemptible * vcpus)));
    perVcpu << tr("preemptible %1 per vCPU").arg(money(*spec.usdPerHourPreemptible));
  }
  if (perVcpu.isEmpty()) return;
  price->setToolTip(tr("The VM's price for %n vCPU(s): %1", nullptr, vcpus).arg(perVcpu.join(QStringLiteral(", "))) +
                    (spec.priceDate.empty() ? QString() : tr("; prices as of %1").arg(QString::fromStdString(spec.priceDate))));
}

core::experiment::DeviceChoice HardwarePanel::readRow(int row) const {
  const auto& spec = m_rows[static_cast<std::size_t>(row)].spec;
  core::experiment::DeviceChoice c;
  c.deviceId = spec.id;
  const auto* count = static_cast<QSpinBox*>(m_table->cellWidget(row, kCount));
  if (isScalableCpu(spec)) {
    c.vcpus = count->value();
  } else {
    c.count = count->value();
  }
  const auto* price = static_cast<QComboBox*>(m_table->cellWidget(row, kPrice));
  c.preemptible = price->currentData().toBool();
  if (const QVariant typed = price->property(kUserPriceProperty); typed.isValid()) c.userUsdPerHour = typed.toDouble();
  const int p = static_cast<QComboBox*>(m_table->cellWidget(row, kPrecision))->currentData().toInt();
  if (p != kAsRun) c.precision = static_cast<Precision>(p);
  return c;
}

void HardwarePanel::applyChoice(int row, const core::experiment::DeviceChoice& c, bool checked) {
  const auto& spec = m_rows[static_cast<std::size_t>(row)].spec;
  auto* count = static_cast<QSpinBox*>(m_table->cellWidget(row, kCount));
  const QSignalBlocker b0(count);
  if (isScalableCpu(spec)) {
    count->setValue(c.vcpus > 0 ? c.vcpus : defaultVcpus(spec));
    showVmPrice(row);
  } else if (!spec.measured) {
    count->setValue(std::max(1, c.count));
  }
  auto* price = static_cast<QComboBox*>(m_table->cellWidget(row, kPrice));
  const QSignalBlocker b1(price);
  const int pi = price->findData(c.preemptible);
  if (pi >= 0) price->setCurrentIndex(pi);
  setUserPrice(price, c.userUsdPerHour);
  auto* precision = static_cast<QComboBox*>(m_table->cellWidget(row, kPrecision));
  const QSignalBlocker b2(precision);
  const int qi = precision->findData(c.precision ? static_cast<int>(*c.precision) : kAsRun);
  precision->setCurrentIndex(qi >= 0 ? qi : 0);
  m_table->item(row, kDevice)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

QVector<core::experiment::DeviceChoice> HardwarePanel::choices() const {
  QVector<core::experiment::DeviceChoice> out;
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (m_table->item(r, kDevice)->checkState() == Qt::Checked) out << readRow(r);
  return out;
}

QStringList HardwarePanel::setChoices(const QVector<core::experiment::DeviceChoice>& wanted) {
  QStringList unknown;
  m_updating = true;
  // A new set of choices (a preset, an opened experiment) is the whole story: a row it does not
  // name goes back to its defaults instead of keeping another set-up's vCPUs or price.
  for (int r = 0; r < m_table->rowCount(); ++r) {
    core::experiment::DeviceChoice defaults;
    defaults.deviceId = m_rows[static_cast<std::size_t>(r)].spec.id;
    applyChoice(r, defaults, false);
  }
  for (const auto& c : wanted) {
    const int row = rowOf(QString::fromStdString(c.deviceId));
    if (row < 0) {
      unknown << QString::fromStdString(c.deviceId);
      continue;
    }
    applyChoice(row, c, true);
  }
  m_updating = false;
  fitColumns();
  setHostMeasured(m_hostMeasured);
  Q_EMIT choicesChanged();
  return unknown;
}

void HardwarePanel::showExperiment(const core::experiment::Experiment& e) {
  const QSignalBlocker blocker(this);
  m_hostMeasured = e.trainHere;
  setChoices(QVector<core::experiment::DeviceChoice>(e.devices.begin(), e.devices.end()));
}

void HardwarePanel::applyTo(core::experiment::Experiment& e) const {
  std::vector<core::experiment::DeviceChoice> devices;
  for (core::experiment::DeviceChoice c : choices()) {
    for (const auto& before : e.devices)
      if (before.deviceId == c.deviceId) {
        c.stackId = before.stackId;
        if (c.vcpus > 0) c.memoryGib = before.memoryGib;  // the VM's RAM: set by presets, kept here
      }
    devices.push_back(std::move(c));
  }
  e.devices = std::move(devices);
}

std::optional<core::experiment::DeviceChoice> HardwarePanel::settings(const QString& deviceId) const {
  const int row = rowOf(deviceId);
  if (row < 0) return std::nullopt;
  return readRow(row);
}

void HardwarePanel::setHostMeasured(bool measured) {
  m_hostMeasured = measured;
  const int row = rowOf(hostId());
  if (row < 0) return;
  QTableWidgetItem* item = m_table->item(row, kDevice);
  const bool wasUpdating = m_updating;
  m_updating = true;
  if (measured) {
    item->setCheckState(Qt::Checked);
    item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
  } else {
    item->setFlags(item->flags() | Qt::ItemIsEnabled);
  }
  QFont f = item->font();
  f.setItalic(measured);
  item->setFont(f);
  item->setToolTip(measured ? tr("This machine trains for real: its times are measured (the simulator's "
                                 "prediction is kept for the host-check chart)")
                            : tr("This machine, simulated like the other devices"));
  m_updating = wasUpdating;
}

void HardwarePanel::setDeviceStatus(const QString& deviceId, const DeviceStatus& status) {
  const int row = rowOf(deviceId);
  if (row < 0) return;
  m_rows[static_cast<std::size_t>(row)].status = status;
  QTableWidgetItem* item = m_table->item(row, kEstimate);
  item->setText(status.text);
  item->setToolTip(status.detail);
  switch (status.kind) {
    case DeviceStatus::Kind::Ok:
      item->setIcon({});
      item->setForeground(palette().brush(QPalette::Text));
      break;
    case DeviceStatus::Kind::OutOfMemory:
      item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
      item->setForeground(QColor(0xD5, 0x5E, 0x00));  // Okabe–Ito vermillion
      break;
    case DeviceStatus::Kind::NotApplicable:
      item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxInformation));
      item->setForeground(palette().brush(QPalette::PlaceholderText));
      break;
    case DeviceStatus::Kind::Error:
      item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxCritical));
      item->setForeground(palette().brush(QPalette::PlaceholderText));
      break;
  }
}

DeviceStatus HardwarePanel::deviceStatus(const QString& deviceId) const {
  const int row = rowOf(deviceId);
  return row < 0 ? DeviceStatus{} : m_rows[static_cast<std::size_t>(row)].status;
}

void HardwarePanel::setNote(const QString& text) {
  m_note->setText(text);
  m_note->setVisible(!text.isEmpty());
}

void HardwarePanel::setTheme(ChartTheme theme) {
  m_theme = theme;
  for (int row = 0; row < m_table->rowCount(); ++row) {
    QTableWidgetItem* item = m_table->item(row, kDevice);
    if (!item) continue;
    QPixmap swatch(10, 10);
    swatch.fill(deviceColor(item->data(Qt::UserRole).toString(), theme));
    item->setIcon(QIcon(swatch));
  }
}

}  // namespace widgets
