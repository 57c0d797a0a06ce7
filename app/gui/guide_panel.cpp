#include "app/gui/guide_panel.h"
#include "widgets/palette.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QStyle>
#include <QTextDocument>
#include <algorithm>
#include <QLabel>
#include <QTableWidget>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QVBoxLayout>

namespace app::gui {
namespace {

// A tooltip shows rich text whenever the text looks like HTML; a preset's words are shown as
// written (escaped, in a paragraph), whatever they hold.
QString plainToolTip(const QString& text) {
  return text.isEmpty() ? QString() : Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal);
}

}  // namespace

GuidePanel::GuidePanel(QWidget* parent) : QWidget(parent) {
  setObjectName("GuidePanel");
  // Title, mode and explanation scroll together; the comparison table keeps its place.
  auto* text = new QWidget(this);
  auto* textLayout = new QVBoxLayout(text);
  textLayout->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(text);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  // A preset's title and explanation are plain text: HTML in a downloaded preset (an <img>
  // naming a local file) must not be rendered into the window or its screenshot.
  m_title = new QLabel(this);
  m_title->setObjectName("presetTitle");
  m_title->setTextFormat(Qt::PlainText);
  m_title->setWordWrap(true);
  QFont f = m_title->font();
  f.setBold(true);
  m_title->setFont(f);
  m_mode = new QLabel(this);
  m_mode->setObjectName("modeNote");
  m_mode->setTextFormat(Qt::RichText);  // our own <i>; the preset's note is escaped
  m_mode->setWordWrap(true);
  m_explanation = new QLabel(this);
  m_explanation->setObjectName("explanation");
  m_explanation->setTextFormat(Qt::PlainText);
  m_explanation->setWordWrap(true);
  m_mismatch = new QLabel(this);
  m_mismatch->setObjectName("mismatch");
  m_mismatch->setTextFormat(Qt::RichText);  // our own <b>; the reason is escaped
  m_mismatch->setWordWrap(true);
  m_mismatch->hide();
  m_runNote = new QLabel(this);
  m_runNote->setObjectName("runNote");
  m_runNote->setTextFormat(Qt::PlainText);
  m_runNote->setWordWrap(true);
  m_runNote->hide();
  m_table = new QTableWidget(0, 5, this);
  m_table->setObjectName("comparisons");
  // AccelLab's figure is computed for the article's protocol (its epochs and steps), as the
  // published one was measured; "This run" is the same figure read off the run on screen.
  m_table->setHorizontalHeaderLabels(
      {tr("Comparison"), tr("Published"), tr("AccelLab\n(article)"), tr("Error"), tr("This run")});
  m_table->horizontalHeaderItem(2)->setToolTip(
      tr("Simulated for the article's set-up (its epochs and steps, compilation included), as the published "
         "figure was measured: the row's tooltip says which."));
  m_table->horizontalHeaderItem(4)->setToolTip(
      tr("The same figure read off the run on screen (its own epochs and images): where the charts and the "
         "article's protocol differ, this is what the charts show."));
  m_table->horizontalHeaderItem(3)->setToolTip(
      tr("AccelLab against the published figure. Green: within the row's tolerance. Amber: outside it, for the "
         "known cause written under the row. Red: outside it, cause unknown."));
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setWordWrap(true);
  m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_table->setMinimumWidth(300);
  // The figure columns get their content's width up to a share of the table, so a long
  // AccelLab outcome ("out of memory (…)") wraps instead of squeezing the labels to nothing.
  m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Fixed);
  m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Fixed);
  m_table->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Fixed);
  m_table->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Fixed);
  m_table->viewport()->installEventFilter(this);
  textLayout->addWidget(m_title);
  textLayout->addWidget(m_mode);
  textLayout->addWidget(m_mismatch);
  textLayout->addWidget(m_runNote);
  textLayout->addWidget(m_explanation);
  textLayout->addStretch(1);
  layout->addWidget(scroll, 2);   // the table (five columns) takes three fifths
  layout->addWidget(m_table, 3);
  setPreset(nullptr);
}

void GuidePanel::setPreset(const Preset* p) {
  m_table->setRowCount(0);
  m_comparisons.clear();
  m_results.clear();
  m_presetId = p ? p->id : QString();
  m_presetTitle = p ? p->title : QString();
  m_presetEpochs = p ? p->experiment.train.epochs : 0;
  m_mismatchReason.clear();
  m_runNote->hide();
  if (!p) {
    m_title->setText(tr("Your own set-up"));
    m_mode->setText(tr("Open a preset (File ▸ Presets) to re-create a published experiment with its figures."));
    m_explanation->clear();
    m_explanationTemplate.clear();
    m_table->hide();
    return;
  }
  m_title->setText(p->title);
  const QString mode = p->experiment.trainHere ? tr("Trains for real.") : tr("Simulation only.");
  m_mode->setText("<i>" + (p->modeNote.isEmpty() ? mode : p->modeNote).toHtmlEscaped() + "</i>");
  m_explanationTemplate = p->explanation;
  m_explanation->setText(renderGuideText(m_explanationTemplate, p->comparisons, {}));
  m_table->setVisible(!p->comparisons.isEmpty());
  m_table->setRowCount(static_cast<int>(p->comparisons.size()));
  for (int i = 0; i < p->comparisons.size(); ++i) {
    const Comparison& c = p->comparisons[i];
    auto* label = new QTableWidgetItem(QString::fromStdString(c.label));
    label->setToolTip(plainToolTip(QString::fromStdString(c.source)));
    m_table->setItem(i, 0, label);
    auto* published = new QTableWidgetItem(publishedText(c));
    published->setToolTip(plainToolTip(QString::fromStdString(c.source)));
    m_table->setItem(i, 1, published);
    m_table->setItem(i, 2, new QTableWidgetItem(tr("…")));
    m_table->setItem(i, 3, new QTableWidgetItem(QString()));
    auto* onRun = new QTableWidgetItem(QStringLiteral("–"));
    onRun->setToolTip(tr("No run of this preset on screen yet."));
    m_table->setItem(i, 4, onRun);
  }
  m_comparisons = p->comparisons;
  fitColumns();
}

void GuidePanel::fitColumns() {
  const int width = m_table->viewport()->width();
  if (width <= 0 || m_table->rowCount() == 0) return;
  const int pad = 2 * m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 8;
  auto contentWidth = [&](int column) {
    const QFontMetrics fm(m_table->font());
    int w = QFontMetrics(m_table->horizontalHeader()->font())
                .horizontalAdvance(m_table->horizontalHeaderItem(column)->text()) + 2 * pad;
    for (int r = 0; r < m_table->rowCount(); ++r)
      if (const QTableWidgetItem* item = m_table->item(r, column)) w = std::max(w, fm.horizontalAdvance(item->text()) + pad);
    return w;
  };
  // The error ("−9.4%", "agrees") is short and never cut; the figures share what the labels leave.
  m_table->horizontalHeader()->resizeSection(3, std::min(contentWidth(3), width * 25 / 100));
  m_table->horizontalHeader()->resizeSection(1, std::min(contentWidth(1), width * 25 / 100));
  m_table->horizontalHeader()->resizeSection(2, std::min(contentWidth(2), width * 25 / 100));
  m_table->horizontalHeader()->resizeSection(4, std::min(contentWidth(4), width * 20 / 100));
  m_table->resizeRowsToContents();
}

void GuidePanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // The agreement colours are made readable on the background: a theme change recolours them.
  if (event->type() == QEvent::PaletteChange && !m_results.isEmpty()) setResults(m_results, m_mismatchReason);
}

bool GuidePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_table->viewport() && event->type() == QEvent::Resize) fitColumns();
  return QWidget::eventFilter(watched, event);
}

QString GuidePanel::mismatchText() const { return m_mismatch->isHidden() ? QString() : m_mismatch->text(); }

QJsonObject GuidePanel::toJson() const {
  if (m_presetId.isEmpty()) return {};
  QJsonObject o;
  o["preset"] = m_presetId;
  o["preset_title"] = m_presetTitle;
  o["comparisons"] = comparisonsToJson(m_comparisons, m_results, m_mismatchReason);
  return o;
}

void GuidePanel::setResults(const QVector<ComparisonResult>& results, const QString& mismatch) {
  m_results = results;
  m_mismatchReason = mismatch;
  // The guide's figures are the comparisons' own, recomputed with them.
  m_explanation->setText(renderGuideText(m_explanationTemplate, m_comparisons, results));
  const bool comparable = mismatch.isEmpty();
  m_mismatch->setVisible(!comparable && !m_comparisons.isEmpty());
  m_mismatch->setText(comparable ? QString()
                                 : tr("<b>Your set-up is not the preset's</b> (%1): the published figures are for the "
                                      "preset's set-up, so they are greyed and not compared. Reopen the preset to "
                                      "compare again.").arg(mismatch.toHtmlEscaped()));
  for (int i = 0; i < results.size() && i < m_table->rowCount() && i < m_comparisons.size(); ++i) {
    const ComparisonResult& r = results[i];
    const Comparison& c = m_comparisons[i];
    QTableWidgetItem* item = m_table->item(i, 2);
    item->setText(r.text);
    item->setToolTip(plainToolTip(tr("Simulated for %1. %2").arg(protocolText(c, m_presetEpochs), r.detail)));
    // The error, coloured by agreement; a disagreement's known cause goes under the label.
    QTableWidgetItem* error = m_table->item(i, 3);
    const bool computed = r.ok;
    const bool explained = !r.agrees && !c.explanation.empty();
    const QString labelText = QString::fromStdString(c.label), explanation = QString::fromStdString(c.explanation);
    const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
    m_table->item(i, 1)->setForeground(comparable ? palette().color(QPalette::Text) : grey);
    if (!comparable) {
      QTableWidgetItem* error = m_table->item(i, 3);
      error->setText(QStringLiteral("–"));
      error->setForeground(grey);
      error->setToolTip(plainToolTip(tr("Not compared: the set-up differs from the preset's (%1).").arg(mismatch)));
      m_table->item(i, 0)->setText(labelText);
      continue;
    }
    error->setText(!computed ? QStringLiteral("–")
                   : c.metric == Comparison::Metric::Fits ? (r.agrees ? tr("agrees") : tr("differs"))
                                                         : errorText(r.error));
    // Readable (4.5:1) on the table's background in either theme.
    const QColor base = palette().color(QPalette::Base);   // the table's (its own is set after this event)
    const QColor agree = widgets::readableOn(QColor(0, 120, 60), base, 4.5);
    const QColor known = widgets::readableOn(QColor(170, 110, 0), base, 4.5);
    const QColor unknown = widgets::readableOn(QColor(190, 30, 30), base, 4.5);
    error->setForeground(r.agrees ? agree : explained ? known : computed ? unknown : palette().color(QPalette::Text));
    QFont f = error->font();
    f.setBold(computed);
    error->setFont(f);
    error->setToolTip(plainToolTip(tr("Tolerance ±%1%. %2")
                                       .arg(100 * c.toleranceOrDefault(), 0, 'f', 0)
                                       .arg(r.agrees    ? tr("Agrees.")
                                            : explained ? tr("Known cause: %1").arg(explanation)
                                                        : tr("Disagrees; no known cause."))));
    // Under the label the cause's first sentence; the whole of it in the tooltip.
    QTableWidgetItem* label = m_table->item(i, 0);
    QString why = explanation.section(QStringLiteral(". "), 0, 0);
    if (why.size() > 110) why = why.left(108) + QStringLiteral("…");
    label->setText(explained ? labelText + "\n" + tr("why: %1").arg(why) : labelText);
    label->setToolTip(explained ? plainToolTip(explanation) : QString());
  }
  fitColumns();
}

QString GuidePanel::modeText() const { return m_mode->text(); }
QString GuidePanel::explanationText() const { return m_explanation->text(); }
int GuidePanel::comparisonRows() const { return m_table->rowCount(); }
QString GuidePanel::errorValue(int row) const {
  const QTableWidgetItem* item = m_table->item(row, 3);
  return item ? item->text() : QString();
}

QColor GuidePanel::errorColor(int row) const {
  const QTableWidgetItem* item = m_table->item(row, 3);
  return item ? item->foreground().color() : QColor();
}

QColor GuidePanel::tableBase() const { return m_table->palette().color(QPalette::Base); }

void GuidePanel::setRunResults(const QVector<ComparisonResult>& results, const QString& why) {
  // Called as the run streams (30 times a second while it trains): the table is re-laid only
  // when a figure changes.
  bool changed = false;
  for (int i = 0; i < m_table->rowCount(); ++i) {
    QTableWidgetItem* item = m_table->item(i, 4);
    if (!item) continue;
    const ComparisonResult r = results.value(i);
    const QString text = r.text.isEmpty() ? QStringLiteral("–") : r.text;
    const QString tip = plainToolTip(!why.isEmpty() ? why : r.detail);
    if (item->text() == text && item->toolTip() == tip) continue;
    item->setText(text);
    item->setToolTip(tip);
    changed = true;
  }
  if (m_runNote->text() != why) {
    m_runNote->setText(why);
    changed = true;
  }
  m_runNote->setVisible(!why.isEmpty() && !m_presetId.isEmpty());
  if (changed) fitColumns();
}

QString GuidePanel::runNoteText() const { return m_runNote->isHidden() ? QString() : m_runNote->text(); }

QString GuidePanel::runValue(int row) const {
  const QTableWidgetItem* item = m_table->item(row, 4);
  return item ? item->text() : QString();
}

QString GuidePanel::appValue(int row) const {
  const QTableWidgetItem* item = m_table->item(row, 2);
  return item ? item->text() : QString();
}

}  // namespace app::gui
