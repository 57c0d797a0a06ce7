#pragma once
// The Samples dock: what a language model (char-gpt) writes as it learns. At every evaluation
// the run continues the prompt typed here (greedy, and sampled at the trainer's temperature),
// so a class watches gibberish turn into English-like fortunes. Shows the current run's texts;
// other runs get a hint.
#include <QWidget>

class QLineEdit;
class QTextBrowser;

namespace widgets {

class RunStore;

class SamplesPanel : public QWidget {
  Q_OBJECT
public:
  explicit SamplesPanel(RunStore* store, QWidget* parent = nullptr);

  // The prompt the next evaluations continue (empty: a new fortune, "%\n").
  QString prompt() const;
  void setPrompt(const QString& prompt);
  // The text shown (for tests and exports).
  QString plainText() const;

Q_SIGNALS:
  void promptChanged(const QString& prompt);

private:
  void showCurrentRun();

  RunStore* m_store;
  QLineEdit* m_prompt;
  QTextBrowser* m_view;
  int m_shownRun = 0;
  std::size_t m_shownTexts = 0;
};

}  // namespace widgets
