#include "widgets/samples_panel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "widgets/run_store.h"

namespace widgets {

namespace {

QString html(const std::string& bytes) {
  return QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size())).toHtmlEscaped().replace('\n', "<br>");
}

QString textHtml(const core::experiment::TextSample& t) {
  const QString prompt = QStringLiteral("<b>%1</b>").arg(html(t.prompt));
  return QObject::tr("<p><span style='color:gray'>— update %1 · %2 bits/char —</span><br>"
                     "%3%4<br><span style='color:gray'>sampled:</span> %3%5</p>")
      .arg(t.step)
      .arg(t.bitsPerChar, 0, 'f', 2)
      .arg(prompt, html(t.greedy), html(t.sampled));
}

}  // namespace

SamplesPanel::SamplesPanel(RunStore* store, QWidget* parent) : QWidget(parent), m_store(store) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* row = new QHBoxLayout;
  auto* label = new QLabel(tr("Prompt:"), this);
  m_prompt = new QLineEdit(this);
  m_prompt->setPlaceholderText(tr("empty: a new fortune"));
  m_prompt->setToolTip(tr("Each evaluation of a language-model run continues this text. Change it while the "
                          "model trains: the next evaluation uses it."));
  label->setBuddy(m_prompt);
  row->addWidget(label);
  row->addWidget(m_prompt, 1);
  layout->addLayout(row);
  m_view = new QTextBrowser(this);
  m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_view->setOpenLinks(false);
  layout->addWidget(m_view, 1);

  connect(m_prompt, &QLineEdit::textChanged, this, &SamplesPanel::promptChanged);
  connect(m_store, &RunStore::currentRunChanged, this, &SamplesPanel::showCurrentRun);
  connect(m_store, &RunStore::textsAppended, this, [this](int id) {
    if (id == m_store->currentRunId()) showCurrentRun();
  });
  connect(m_store, &RunStore::runRemoved, this, &SamplesPanel::showCurrentRun);
  showCurrentRun();
}

QString SamplesPanel::prompt() const { return m_prompt->text(); }
void SamplesPanel::setPrompt(const QString& prompt) { m_prompt->setText(prompt); }
QString SamplesPanel::plainText() const { return m_view->toPlainText(); }

void SamplesPanel::showCurrentRun() {
  const Run* run = m_store->run(m_store->currentRunId());
  if (!run || tokensPerSample(*run) == 0) {
    m_shownRun = 0;
    m_shownTexts = 0;
    m_view->setHtml(tr("<p style='color:gray'>A language model writes here as it learns: choose the model "
                       "<b>char-gpt</b> on <b>fortunes</b> (or File → Presets → GPT on fortunes) and press Run. "
                       "Every evaluation continues the prompt above.</p>"));
    return;
  }
  if (run->id != m_shownRun || run->texts.size() < m_shownTexts) {
    m_view->clear();
    m_shownRun = run->id;
    m_shownTexts = 0;
  }
  if (run->texts.empty() && m_shownTexts == 0) {
    m_view->setHtml(tr("<p style='color:gray'>No evaluation yet: the first text comes at the end of the first epoch.</p>"));
    return;
  }
  if (m_shownTexts == 0) m_view->clear();
  QScrollBar* bar = m_view->verticalScrollBar();
  const bool atEnd = bar->value() >= bar->maximum() - 4;
  for (std::size_t i = m_shownTexts; i < run->texts.size(); ++i) m_view->append(textHtml(run->texts[i]));
  m_shownTexts = run->texts.size();
  if (atEnd) bar->setValue(bar->maximum());
}

}  // namespace widgets
